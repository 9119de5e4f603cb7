package io.github.wheeltimer.annotation;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The calls that the code of one class makes on {@code this}, read from its class file as chapter 4
 * of the JVM specification lays it out, alike in every version up to Java 25's. A call is on
 * {@code this} when its receiver is local variable 0 of an instance method. Each method is read
 * once, first instruction to last, following the operand stack (JVMS 6.5: how many slots each
 * instruction takes and puts) and which of its slots hold {@code this}; a jump carries the stack to
 * its target, where a slot holds {@code this} only if it does on every path. Code that no jump
 * before it reaches (an exception handler, a loop body that some compilers place before the
 * condition) starts empty, as a statement does: a wrong guess can miss a call, not invent one.
 */
final class CallsOnThis {

	/**
	 * Opcodes 0 ({@code nop}) to 201 ({@code jsr_w}), twenty a line: the instruction's length in bytes
	 * (0 where it varies), and the stack slots it takes and puts (none where a descriptor tells);
	 * for {@code dup} to {@code swap}, which taken slot (0 the deepest) each put slot is.
	 */
	private static final String[] INSTRUCTIONS = (""
			+ "100 101 101 101 101 101 101 101 101 102 102 101 101 101 102 102 201 301 201 301 "
			+ "302 201 202 201 202 201 101 101 101 101 102 102 102 102 101 101 101 101 102 102 "
			+ "102 102 101 101 101 101 121 122 121 122 121 121 121 121 210 220 210 220 210 110 "
			+ "110 110 110 120 120 120 120 110 110 110 110 120 120 120 120 110 110 110 110 130 "
			+ "140 130 140 130 130 130 130 110 120 11200 123101 1342012 1240101 13512012 146230123 12210 121 142 121 142 "
			+ "121 142 121 142 121 142 121 142 121 142 121 142 121 142 121 142 111 122 111 122 "
			+ "121 132 121 132 121 132 121 142 121 142 121 142 300 112 111 112 121 121 122 111 "
			+ "112 112 121 122 121 111 111 111 141 121 121 141 141 310 310 310 310 310 310 320 "
			+ "320 320 320 320 320 320 320 300 301 200 010 010 110 120 110 120 110 100 300 300 "
			+ "300 300 300 300 300 500 500 301 211 311 111 110 300 311 110 110 000 401 310 310 "
			+ "500 501").split(" ");

	/** Object and array types, which take one slot like every type but {@code long} and {@code double}. */
	private static final Pattern REFERENCE = Pattern.compile("\\[*L[^;]*;|\\[+.");

	/**
	 * One call on {@code this}.
	 * @param special whether it runs what {@code owner} has ({@code super.x()}), not the receiver's
	 * @param caller the calling method's name and descriptor; for a lambda body, its creator's
	 */
	record Call(boolean special, String owner, String name, String descriptor, String caller) {

	}

	/** Per constant, the text of a Utf8, or else the tag and the fields. */
	private final Object[] pool;

	private final String className;

	private final List<int[]> bootstrapArguments = new ArrayList<>();

	/** The methods that the compiler wrote, lambda bodies among them. */
	private final Set<String> synthetic = new HashSet<>();

	/** Lambda body to the method that writes the lambda. */
	private final Map<String, String> lambdaCreators = new HashMap<>();

	private CallsOnThis(Object[] pool, int thisClass) {
		this.pool = pool;
		this.className = utf(entry(thisClass)[1]);
	}

	/**
	 * Reads a class file.
	 * @param classFile the class file's bytes, left open
	 * @return the calls on {@code this} made by its methods
	 * @throws IOException if the stream cannot be read or holds no class file
	 * @throws RuntimeException if the class file is malformed
	 */
	static List<Call> read(InputStream classFile) throws IOException {
		DataInputStream in = new DataInputStream(classFile);
		if (in.readInt() != 0xCAFEBABE) {
			throw new IOException("Not a class file");
		}
		in.skipNBytes(4);
		Object[] pool = new Object[in.readUnsignedShort()];
		for (int i = 1; i < pool.length; i++) {
			int tag = in.readUnsignedByte();
			pool[i] = switch (tag) {
				case 1 -> in.readUTF();
				case 7, 8, 16, 19, 20 -> new int[] { tag, in.readUnsignedShort() };
				case 15 -> new int[] { tag, in.readUnsignedByte(), in.readUnsignedShort() };
				case 3, 4, 9, 10, 11, 12, 17, 18 -> new int[] { tag, in.readUnsignedShort(), in.readUnsignedShort() };
				case 5, 6 -> new int[] { tag, in.readInt(), in.readInt() };
				default -> throw new IOException("Unknown constant pool tag " + tag);
			};
			i += (tag == 5 || tag == 6) ? 1 : 0; // A long or a double takes two entries.
		}
		in.skipNBytes(2);
		CallsOnThis reader = new CallsOnThis(pool, in.readUnsignedShort());
		in.skipNBytes(2);
		in.skipNBytes(2L * in.readUnsignedShort());
		for (int fields = in.readUnsignedShort(); fields > 0; fields--) {
			in.skipNBytes(6);
			reader.attribute(in, "");
		}
		Map<String, byte[]> codes = new LinkedHashMap<>();
		for (int methods = in.readUnsignedShort(); methods > 0; methods--) {
			int access = in.readUnsignedShort();
			String method = reader.utf(in.readUnsignedShort()) + reader.utf(in.readUnsignedShort());
			byte[] code = reader.attribute(in, "Code");
			// Static methods (0x0008) have no this, bridges (0x0040) forward a call reported where it is made.
			if ((access & 0x0048) == 0 && code.length > 0) {
				codes.put(method, code);
			}
			if ((access & 0x1000) != 0) {
				reader.synthetic.add(method);
			}
		}
		ByteBuffer bootstrap = ByteBuffer.wrap(reader.attribute(in, "BootstrapMethods"));
		for (int i = bootstrap.hasRemaining() ? bootstrap.getShort() & 0xffff : 0; i > 0; i--) {
			int[] arguments = new int[bootstrap.getInt() & 0xffff]; // The method's reference, then the count.
			Arrays.setAll(arguments, (argument) -> bootstrap.getShort() & 0xffff);
			reader.bootstrapArguments.add(arguments);
		}
		List<Call> calls = new ArrayList<>();
		codes.forEach((method, code) -> reader.read(method, ByteBuffer.wrap(code), calls));
		return calls.stream().map(reader::fromCreator).toList();
	}

	/** Adds the calls on {@code this} that one method's Code attribute makes. */
	private void read(String method, ByteBuffer attribute, List<Call> calls) {
		ByteBuffer code = attribute.slice(8, attribute.getInt(4));
		Map<Integer, boolean[]> jumps = new HashMap<>();
		List<Call> found = new ArrayList<>();
		boolean[] stack = new boolean[0];
		boolean writesThis = false;
		for (int pc = 0, length; pc < code.limit(); pc += length) {
			boolean[] jumped = jumps.remove(pc);
			stack = (stack == null) ? ((jumped != null) ? jumped : new boolean[0])
					: (jumped != null) ? meet(stack, jumped) : stack;
			boolean wide = (code.get(pc) & 0xff) == 196;
			int opcode = code.get(wide ? pc + 1 : pc) & 0xff;
			String instruction = INSTRUCTIONS[opcode];
			length = wide ? ((opcode == 132) ? 6 : 4) : instruction.charAt(0) - '0';
			int takes = instruction.charAt(1) - '0';
			int puts = instruction.charAt(2) - '0';
			int local = (opcode == 42 || opcode == 75) ? 0 : (opcode != 25 && opcode != 58) ? -1
					: wide ? code.getShort(pc + 2) & 0xffff : code.get(pc + 1) & 0xff;
			writesThis |= (opcode == 75 || opcode == 58) && local == 0;
			List<Integer> targets = new ArrayList<>();
			if (opcode >= 153 && opcode <= 168 || opcode == 198 || opcode == 199) {
				targets.add(pc + code.getShort(pc + 1));
			}
			else if (opcode == 200 || opcode == 201) {
				targets.add(pc + code.getInt(pc + 1));
			}
			else if (opcode == 170 || opcode == 171) {
				// After padding to a multiple of four: the default, then low and high, or a count of pairs.
				int at = (pc + 4) & ~3;
				int cases = (opcode == 170) ? code.getInt(at + 8) - code.getInt(at + 4) + 1 : code.getInt(at + 4);
				targets.add(pc + code.getInt(at));
				for (int i = 0; i < cases; i++) {
					targets.add(pc + code.getInt(at + 12 + ((opcode == 170) ? 4 : 8) * i));
				}
				// Past the last case: a malformed count cannot move backwards and loop.
				length = at - pc + ((opcode == 170) ? 12 + 4 * Math.max(0, cases) : 8 + 8 * Math.max(0, cases));
			}
			else if (opcode >= 178 && opcode <= 181) {
				// getstatic, putstatic, getfield, putfield: a field takes the object, a put the value.
				int slots = slots(member(code.getShort(pc + 1) & 0xffff)[2]);
				takes = opcode / 180 + (opcode % 2) * slots;
				puts = (1 - opcode % 2) * slots;
			}
			else if (opcode >= 182 && opcode <= 186) {
				int[] reference = entry(code.getShort(pc + 1) & 0xffff);
				String descriptor = utf(entry(reference[2])[2]);
				takes = slots(descriptor.substring(1, descriptor.indexOf(')')));
				puts = slots(descriptor.substring(descriptor.indexOf(')') + 1));
				if (opcode == 186) {
					// A bound method reference captures its receiver first: this::x captures this.
					linked(method, reference[1], takes > 0 && isThis(stack, takes - 1), found);
				}
				else if (opcode != 184) {
					if (isThis(stack, takes)) {
						String[] target = member(code.getShort(pc + 1) & 0xffff);
						found.add(new Call(opcode == 183, target[0], target[1], target[2], method));
					}
					takes++;
				}
			}
			else if (opcode == 197) {
				takes = code.get(pc + 3) & 0xff;
			}
			boolean[] taken = Arrays.copyOfRange(stack, Math.max(0, stack.length - takes), stack.length);
			stack = Arrays.copyOf(stack, stack.length - taken.length + puts);
			for (int i = 0; i < puts; i++) {
				// A shuffle moves marks only when every slot it takes is known.
				int from = (instruction.length() > 3 && taken.length == takes) ? instruction.charAt(3 + i) - '0' : -1;
				stack[stack.length - puts + i] = (from >= 0) ? taken[from]
						: local == 0 && (opcode == 42 || opcode == 25);
			}
			for (int target : targets) {
				jumps.merge(target, stack.clone(), CallsOnThis::meet);
			}
			// After a goto, a return, a throw, a switch or a subroutine, only a jump reaches the next instruction.
			if (opcode >= 167 && opcode <= 177 || opcode == 191 || opcode >= 200) {
				stack = null;
			}
		}
		// A method that writes local 0 (javac never does) is left out rather than guessed at.
		calls.addAll(writesThis ? List.of() : found);
	}

	/** What an {@code invokedynamic} links: a lambda body to its creator, and method references. */
	private void linked(String method, int bootstrapMethod, boolean capturesThis, List<Call> found) {
		for (int argument : this.bootstrapArguments.get(bootstrapMethod)) {
			int[] handle = entry(argument);
			if (handle[0] == 15) {
				String[] target = member(handle[2]);
				if (target[0].equals(this.className) && this.synthetic.contains(target[1] + target[2])) {
					this.lambdaCreators.putIfAbsent(target[1] + target[2], method);
				}
				// The kinds of handle that call a method on a receiver: virtual, special, interface.
				if (capturesThis && (handle[1] == 5 || handle[1] == 7 || handle[1] == 9)) {
					found.add(new Call(handle[1] == 7, target[0], target[1], target[2], method));
				}
			}
		}
	}

	/** A lambda body means nothing to the reader; the method that writes the lambda does. */
	private Call fromCreator(Call call) {
		String caller = call.caller();
		// Bounded: nested lambdas are a few levels deep, and a cycle must not hang startup.
		for (int depth = 0; depth < 16 && this.lambdaCreators.containsKey(caller); depth++) {
			caller = this.lambdaCreators.get(caller);
		}
		return new Call(call.special(), call.owner(), call.name(), call.descriptor(), caller);
	}

	/** Where paths meet, a slot holds {@code this} only if it does on each. */
	private static boolean[] meet(boolean[] one, boolean[] other) {
		boolean[] met = new boolean[one.length];
		for (int i = 0; i < met.length && one.length == other.length; i++) {
			met[i] = one[i] && other[i];
		}
		return met;
	}

	/** @param depth 0 for the top slot */
	private static boolean isThis(boolean[] stack, int depth) {
		return depth < stack.length && stack[stack.length - 1 - depth];
	}

	/** The stack slots of a list of types: 3 for {@code JLjava/lang/String;}, 0 for {@code V}. */
	private static int slots(String types) {
		String letters = REFERENCE.matcher(types).replaceAll("L").replace("V", "");
		return letters.length() + letters.replaceAll("[^JD]", "").length();
	}

	/** Reads a list of attributes, keeping the one named (empty if there is none) and skipping the others. */
	private byte[] attribute(DataInputStream in, String name) throws IOException {
		byte[] kept = new byte[0];
		for (int count = in.readUnsignedShort(); count > 0; count--) {
			boolean wanted = utf(in.readUnsignedShort()).equals(name);
			long length = in.readInt() & 0xffffffffL;
			if (wanted) {
				kept = in.readNBytes((int) length);
			}
			else {
				in.skipNBytes(length);
			}
		}
		return kept;
	}

	/** A field's or method's class, name and descriptor, from its reference in the constant pool. */
	private String[] member(int reference) {
		int[] nameAndType = entry(entry(reference)[2]);
		return new String[] { utf(entry(entry(reference)[1])[1]), utf(nameAndType[1]), utf(nameAndType[2]) };
	}

	private String utf(int index) {
		return (String) this.pool[index];
	}

	private int[] entry(int index) {
		return (int[]) this.pool[index];
	}

}
