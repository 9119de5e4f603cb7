package io.github.wheeltimer.benchmarks.durable;

import java.util.List;

import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Burst;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Crashes;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Recovery;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Restart;
import io.github.wheeltimer.benchmarks.durable.ClusterFigures.Throughput;

/** One system's figures; a step that failed leaves its own and later ones unset. */
final class ClusterResult {

	String failure;

	Throughput throughput1;

	Throughput throughput2;

	Burst burst1;

	Burst burst2;

	String falseDeaths;

	Recovery recovery;

	/** db-scheduler: what its default heartbeat would make of K4. */
	String computedRecovery = "";

	Crashes crashes;

	/** K8: ours at its defaults, restarted with the name the engine makes up. */
	List<Restart> restartsGenerated;

	/** K8b: the same, with a configured instance name. */
	List<Restart> restartsNamed;

	/** Why a system has no K8 figures. */
	String restartNote;

	double otherCores = Double.NaN;

	double commitBefore = Double.NaN;

	double commitAfter = Double.NaN;

}
