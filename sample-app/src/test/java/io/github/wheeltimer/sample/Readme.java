package io.github.wheeltimer.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The shell commands of the repository's README, or of the README and pages of {@code docs/}, as a
 * reader would copy them: each line of a {@code ```bash} block, with backslash-continued lines
 * joined, file after file.
 */
record Readme(List<String> commands) {

	static Readme read(Path... files) throws IOException {
		List<String> commands = new ArrayList<>();
		for (Path file : files) {
			commands.addAll(commands(file));
		}
		return new Readme(List.copyOf(commands));
	}

	private static List<String> commands(Path file) throws IOException {
		List<String> commands = new ArrayList<>();
		boolean inBashBlock = false;
		StringBuilder command = new StringBuilder();
		for (String line : Files.readAllLines(file)) {
			if (!inBashBlock) {
				inBashBlock = line.strip().equals("```bash");
				continue;
			}
			if (line.strip().equals("```")) {
				inBashBlock = false;
				continue;
			}
			String part = line.strip();
			if (part.endsWith("\\")) {
				command.append(part, 0, part.length() - 1).append(' ');
				continue;
			}
			command.append(part);
			if (!command.isEmpty()) {
				commands.add(command.toString().replaceAll("\\s+", " "));
			}
			command.setLength(0);
		}
		return commands;
	}

	List<String> commandsStartingWith(String prefix) {
		return this.commands.stream().filter((command) -> command.startsWith(prefix)).toList();
	}

}
