package io.github.wheeltimer.durable.storage;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an instance publishes of the shapes it reads, in its row, comes back as it was written; an
 * instance of an older starter, which publishes nothing, is told apart from one with no method.
 */
class MethodShapesTests {

	@Test
	void theShapesAnInstancePublishesReadBackAsTheyWereWritten() {
		Map<String, MethodShapes> shapes = new LinkedHashMap<>();
		shapes.put("orders.remind", new MethodShapes("0123456789abcdef", Set.of("fedcba9876543210", "")));
		shapes.put("a method\twith a tab", new MethodShapes("00000000000000ff", Set.of()));
		String text = MethodShapes.format(shapes);
		assertThat(text).isEqualTo("orders.remind\t0123456789abcdef\t-,fedcba9876543210\n"
				+ "a method\twith a tab\t00000000000000ff\t");
		assertThat(MethodShapes.parse(text)).isEqualTo(shapes);
		Map<String, MethodShapes> unrecordedOnly = Map.of("orders.remind", new MethodShapes("0123456789abcdef", Set.of("")));
		assertThat(MethodShapes.parse(MethodShapes.format(unrecordedOnly))).isEqualTo(unrecordedOnly);
	}

	@Test
	void anInstanceOfAnOlderStarterSaysNothingWhereOneWithoutMethodsSaysSo() {
		assertThat(MethodShapes.parse(null)).isNull();
		assertThat(MethodShapes.parse("")).isEmpty();
	}

}
