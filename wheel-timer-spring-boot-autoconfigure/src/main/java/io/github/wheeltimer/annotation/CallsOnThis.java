package io.github.wheeltimer.annotation;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.ConstantDynamic;
import org.springframework.asm.Handle;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;
import org.springframework.util.ClassUtils;

/**
 * The method calls that the code of one class makes on {@code this}, read from its class file:
 * what {@link SelfInvocations} matches against a bean's {@link DelayedExecution} methods.
 * <p>
 * A call is on {@code this} when its receiver is the value of local variable 0 of an instance
 * method (where javac keeps {@code this}), possibly after a {@code dup} or a {@code checkcast}.
 * To know which operand is the receiver, each method's operand stack is followed instruction by
 * instruction, one slot per stack word, remembering only whether a slot holds {@code this}. At a
 * branch target the states of the paths that meet are merged (a slot is {@code this} only if it is
 * on every path), and the stack map frame of the class file, when there is one, corrects the depth.
 * So {@code other.x()} on an injected bean of the same class, or on a {@code self} provider, is
 * not a call on {@code this}, and {@code this.x(a ? b : c)} still is.
 * <p>
 * Found: {@code invokevirtual}, {@code invokeinterface} and {@code invokespecial} (including
 * {@code super.x()}) on {@code this}; method references bound to {@code this} ({@code this::x},
 * an {@code invokedynamic} that captures {@code this} and whose bootstrap arguments hold a
 * {@link Handle} to the method); calls in lambda bodies, reported as calls of the method that
 * creates the lambda. Not found: {@code this} kept anywhere but local 0 (a field, another local,
 * an array, {@code Outer.this} in an inner or anonymous class, whose code is another class file);
 * {@code this} passed to other code that calls back; reflection and method handles; unbound
 * references ({@code OrderService::x}). A method that writes local 0 (which javac never does) is
 * left out rather than guessed at. Bridge methods are left out too: they only forward a call that
 * was made on them, and that call is where it is reported.
 */
final class CallsOnThis {

	private CallsOnThis() {
	}

	/** How the JVM picks the method a call runs. */
	enum Dispatch {

		/** From the receiver's class: {@code invokevirtual}, {@code invokeinterface}. */
		VIRTUAL,

		/** The method the owner itself declares or inherits: {@code invokespecial}. */
		SPECIAL

	}

	/**
	 * One call on {@code this}.
	 * @param dispatch how the method to run is picked
	 * @param owner the internal name of the class the call names
	 * @param name the method name
	 * @param descriptor the method descriptor
	 * @param caller the calling method as people read it, such as {@code OrderService.create(String)}
	 */
	record Call(Dispatch dispatch, String owner, String name, String descriptor, String caller) {

	}

	/**
	 * Reads a class file.
	 * @param classFile the class file's bytes, left open
	 * @return the calls on {@code this} made by its methods, in the order of the class file
	 * @throws IOException if the stream cannot be read
	 * @throws IllegalArgumentException if the bytes are not a class file this ASM understands
	 */
	static List<Call> read(InputStream classFile) throws IOException {
		ClassScan scan = new ClassScan();
		// Debug attributes are not needed; expanded frames give the stack depth at every branch target.
		new ClassReader(classFile).accept(scan, ClassReader.SKIP_DEBUG | ClassReader.EXPAND_FRAMES);
		return scan.calls();
	}

	private static final class ClassScan extends ClassVisitor {

		private String className = "";

		private final List<MethodScan> methods = new ArrayList<>();

		private final Set<String> synthetic = new HashSet<>();

		/** Lambda body (name and descriptor) to the method whose code creates the lambda. */
		private final Map<String, String> lambdaCreators = new HashMap<>();

		ClassScan() {
			super(SpringAsmInfo.ASM_VERSION);
		}

		@Override
		public void visit(int version, int access, String name, @Nullable String signature,
				@Nullable String superName, String @Nullable [] interfaces) {
			this.className = name;
		}

		@Override
		public @Nullable MethodVisitor visitMethod(int access, String name, String descriptor,
				@Nullable String signature, String @Nullable [] exceptions) {
			if ((access & Opcodes.ACC_BRIDGE) != 0) {
				return null;
			}
			if ((access & Opcodes.ACC_SYNTHETIC) != 0) {
				this.synthetic.add(name + descriptor);
			}
			MethodScan method = new MethodScan(this, name, descriptor, (access & Opcodes.ACC_STATIC) == 0);
			this.methods.add(method);
			return method;
		}

		List<Call> calls() {
			List<Call> calls = new ArrayList<>();
			for (MethodScan method : this.methods) {
				if (method.thisOverwritten) {
					continue;
				}
				String caller = describe(creatorOf(method.name + method.descriptor));
				for (Call found : method.found) {
					calls.add(new Call(found.dispatch(), found.owner(), found.name(), found.descriptor(), caller));
				}
			}
			return calls;
		}

		/** A lambda body means nothing to the reader; the method that wrote the lambda does. */
		private String creatorOf(String method) {
			String creator = method;
			// Bounded: nested lambdas are a few levels deep, and a cycle must not hang startup.
			for (int depth = 0; depth < 16 && this.synthetic.contains(creator); depth++) {
				String next = this.lambdaCreators.get(creator);
				if (next == null) {
					break;
				}
				creator = next;
			}
			return creator;
		}

		private String describe(String method) {
			int parameters = method.indexOf('(');
			String name = method.substring(0, parameters);
			String type = ClassUtils.getShortName(Type.getObjectType(this.className).getClassName());
			String parameterTypes = Arrays.stream(Type.getArgumentTypes(method.substring(parameters)))
				.map((parameter) -> ClassUtils.getShortName(parameter.getClassName()))
				.collect(Collectors.joining(", ", "(", ")"));
			return switch (name) {
				case "<init>" -> "the constructor " + type + parameterTypes;
				case "<clinit>" -> "the static initializer of " + type;
				default -> type + "." + name + parameterTypes;
			};
		}

	}

	/** Follows one method's operand stack to tell which receivers are {@code this}. */
	private static final class MethodScan extends MethodVisitor {

		private final ClassScan owner;

		private final String name;

		private final String descriptor;

		private final boolean hasThis;

		/** The calls found, with the caller left empty until the class is read. */
		private final List<Call> found = new ArrayList<>();

		/** The stack at branch targets not reached yet, as every jump there left it. */
		private final Map<Label, Slots> jumpedTo = new HashMap<>();

		/** {@code null} where the code cannot be reached by falling through, until a label or frame says. */
		private @Nullable Slots stack = new Slots();

		private boolean thisOverwritten;

		MethodScan(ClassScan owner, String name, String descriptor, boolean hasThis) {
			super(SpringAsmInfo.ASM_VERSION);
			this.owner = owner;
			this.name = name;
			this.descriptor = descriptor;
			this.hasThis = hasThis;
		}

		@Override
		public void visitTryCatchBlock(Label start, Label end, Label handler, @Nullable String type) {
			this.jumpedTo.merge(handler, Slots.others(1), Slots::merge);
		}

		@Override
		public void visitLabel(Label label) {
			Slots jumped = this.jumpedTo.remove(label);
			if (jumped != null) {
				this.stack = (this.stack != null) ? this.stack.merge(jumped) : jumped;
			}
		}

		@Override
		public void visitFrame(int type, int numLocal, Object @Nullable [] local, int numStack,
				Object @Nullable [] stack) {
			int depth = 0;
			for (int i = 0; i < numStack && stack != null; i++) {
				depth += (stack[i] == Opcodes.LONG || stack[i] == Opcodes.DOUBLE) ? 2 : 1;
			}
			// A frame is the verifier's truth about the depth: a backward jump's target, a handler, or
			// a path this simulation got wrong starts again from it, knowing of no this.
			if (this.stack == null || this.stack.size() != depth) {
				this.stack = Slots.others(depth);
			}
		}

		@Override
		public void visitInsn(int opcode) {
			Slots stack = this.stack;
			if (stack == null) {
				return;
			}
			switch (opcode) {
				case Opcodes.NOP -> {
				}
				case Opcodes.POP -> stack.pop(1);
				case Opcodes.POP2 -> stack.pop(2);
				// The operands taken, deepest first, and the order they are put back in.
				case Opcodes.DUP -> stack.shuffle(1, 0, 0);
				case Opcodes.DUP_X1 -> stack.shuffle(2, 1, 0, 1);
				case Opcodes.DUP_X2 -> stack.shuffle(3, 2, 0, 1, 2);
				case Opcodes.DUP2 -> stack.shuffle(2, 0, 1, 0, 1);
				case Opcodes.DUP2_X1 -> stack.shuffle(3, 1, 2, 0, 1, 2);
				case Opcodes.DUP2_X2 -> stack.shuffle(4, 2, 3, 0, 1, 2, 3);
				case Opcodes.SWAP -> stack.shuffle(2, 1, 0);
				case Opcodes.ACONST_NULL, Opcodes.ICONST_M1, Opcodes.ICONST_0, Opcodes.ICONST_1, Opcodes.ICONST_2,
						Opcodes.ICONST_3, Opcodes.ICONST_4, Opcodes.ICONST_5, Opcodes.FCONST_0, Opcodes.FCONST_1,
						Opcodes.FCONST_2 ->
					stack.replace(0, 1);
				case Opcodes.LCONST_0, Opcodes.LCONST_1, Opcodes.DCONST_0, Opcodes.DCONST_1 -> stack.replace(0, 2);
				case Opcodes.IALOAD, Opcodes.FALOAD, Opcodes.AALOAD, Opcodes.BALOAD, Opcodes.CALOAD, Opcodes.SALOAD ->
					stack.replace(2, 1);
				case Opcodes.LALOAD, Opcodes.DALOAD -> stack.replace(2, 2);
				case Opcodes.IASTORE, Opcodes.FASTORE, Opcodes.AASTORE, Opcodes.BASTORE, Opcodes.CASTORE,
						Opcodes.SASTORE ->
					stack.replace(3, 0);
				case Opcodes.LASTORE, Opcodes.DASTORE -> stack.replace(4, 0);
				case Opcodes.IADD, Opcodes.ISUB, Opcodes.IMUL, Opcodes.IDIV, Opcodes.IREM, Opcodes.ISHL, Opcodes.ISHR,
						Opcodes.IUSHR, Opcodes.IAND, Opcodes.IOR, Opcodes.IXOR, Opcodes.FADD, Opcodes.FSUB,
						Opcodes.FMUL, Opcodes.FDIV, Opcodes.FREM, Opcodes.FCMPL, Opcodes.FCMPG ->
					stack.replace(2, 1);
				case Opcodes.LADD, Opcodes.LSUB, Opcodes.LMUL, Opcodes.LDIV, Opcodes.LREM, Opcodes.LAND, Opcodes.LOR,
						Opcodes.LXOR, Opcodes.DADD, Opcodes.DSUB, Opcodes.DMUL, Opcodes.DDIV, Opcodes.DREM ->
					stack.replace(4, 2);
				case Opcodes.LSHL, Opcodes.LSHR, Opcodes.LUSHR -> stack.replace(3, 2);
				case Opcodes.LCMP, Opcodes.DCMPL, Opcodes.DCMPG -> stack.replace(4, 1);
				case Opcodes.INEG, Opcodes.FNEG, Opcodes.I2F, Opcodes.F2I, Opcodes.I2B, Opcodes.I2C, Opcodes.I2S,
						Opcodes.ARRAYLENGTH ->
					stack.replace(1, 1);
				case Opcodes.LNEG, Opcodes.DNEG, Opcodes.L2D, Opcodes.D2L -> stack.replace(2, 2);
				case Opcodes.I2L, Opcodes.I2D, Opcodes.F2L, Opcodes.F2D -> stack.replace(1, 2);
				case Opcodes.L2I, Opcodes.L2F, Opcodes.D2I, Opcodes.D2F -> stack.replace(2, 1);
				case Opcodes.MONITORENTER, Opcodes.MONITOREXIT -> stack.pop(1);
				// Returns, athrow, and anything unknown: what follows is reached only by a jump.
				default -> this.stack = null;
			}
		}

		@Override
		public void visitIntInsn(int opcode, int operand) {
			if (this.stack != null) {
				this.stack.replace((opcode == Opcodes.NEWARRAY) ? 1 : 0, 1);
			}
		}

		@Override
		public void visitVarInsn(int opcode, int variable) {
			Slots stack = this.stack;
			if (stack == null) {
				return;
			}
			switch (opcode) {
				case Opcodes.ALOAD -> stack.push(this.hasThis && variable == 0);
				case Opcodes.ILOAD, Opcodes.FLOAD -> stack.replace(0, 1);
				case Opcodes.LLOAD, Opcodes.DLOAD -> stack.replace(0, 2);
				case Opcodes.ISTORE, Opcodes.FSTORE, Opcodes.ASTORE, Opcodes.LSTORE, Opcodes.DSTORE -> {
					stack.pop((opcode == Opcodes.LSTORE || opcode == Opcodes.DSTORE) ? 2 : 1);
					this.thisOverwritten |= this.hasThis && variable == 0;
				}
				default -> this.stack = null;
			}
		}

		@Override
		public void visitTypeInsn(int opcode, String type) {
			Slots stack = this.stack;
			if (stack != null && opcode != Opcodes.CHECKCAST) {
				stack.replace((opcode == Opcodes.NEW) ? 0 : 1, 1);
			}
		}

		@Override
		public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
			Slots stack = this.stack;
			if (stack == null) {
				return;
			}
			int size = Type.getType(descriptor).getSize();
			switch (opcode) {
				case Opcodes.GETSTATIC -> stack.replace(0, size);
				case Opcodes.PUTSTATIC -> stack.replace(size, 0);
				case Opcodes.GETFIELD -> stack.replace(1, size);
				default -> stack.replace(1 + size, 0);
			}
		}

		@Override
		public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
			Slots stack = this.stack;
			if (stack == null) {
				return;
			}
			int sizes = Type.getArgumentsAndReturnSizes(descriptor);
			int arguments = (sizes >> 2) - 1;
			if (opcode != Opcodes.INVOKESTATIC) {
				if (stack.isThis(arguments) && !name.startsWith("<")) {
					found((opcode == Opcodes.INVOKESPECIAL) ? Dispatch.SPECIAL : Dispatch.VIRTUAL, owner, name,
							descriptor);
				}
				arguments++;
			}
			stack.replace(arguments, sizes & 3);
		}

		@Override
		public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrapMethod,
				Object... bootstrapArguments) {
			Slots stack = this.stack;
			if (stack == null) {
				return;
			}
			int sizes = Type.getArgumentsAndReturnSizes(descriptor);
			int captured = (sizes >> 2) - 1;
			// A bound method reference captures its receiver first: this::x captures this.
			boolean capturesThis = captured > 0 && stack.isThis(captured - 1);
			for (Object argument : bootstrapArguments) {
				if (argument instanceof Handle handle) {
					if (handle.getOwner().equals(this.owner.className)) {
						this.owner.lambdaCreators.putIfAbsent(handle.getName() + handle.getDesc(),
								this.name + this.descriptor);
					}
					Dispatch dispatch = switch (handle.getTag()) {
						case Opcodes.H_INVOKEVIRTUAL, Opcodes.H_INVOKEINTERFACE -> Dispatch.VIRTUAL;
						case Opcodes.H_INVOKESPECIAL -> Dispatch.SPECIAL;
						default -> null;
					};
					if (capturesThis && dispatch != null) {
						found(dispatch, handle.getOwner(), handle.getName(), handle.getDesc());
					}
				}
			}
			stack.replace(captured, sizes & 3);
		}

		@Override
		public void visitJumpInsn(int opcode, Label label) {
			Slots stack = this.stack;
			if (stack == null) {
				return;
			}
			switch (opcode) {
				case Opcodes.GOTO -> {
					jumpTo(label, stack);
					this.stack = null;
				}
				case Opcodes.JSR -> {
					// The subroutine starts with its return address pushed, and returns to the next instruction.
					stack.replace(0, 1);
					jumpTo(label, stack);
					stack.pop(1);
				}
				case Opcodes.IFEQ, Opcodes.IFNE, Opcodes.IFLT, Opcodes.IFGE, Opcodes.IFGT, Opcodes.IFLE, Opcodes.IFNULL,
						Opcodes.IFNONNULL -> {
					stack.pop(1);
					jumpTo(label, stack);
				}
				default -> {
					stack.pop(2);
					jumpTo(label, stack);
				}
			}
		}

		@Override
		public void visitTableSwitchInsn(int min, int max, Label defaultLabel, Label... labels) {
			switchTo(defaultLabel, labels);
		}

		@Override
		public void visitLookupSwitchInsn(Label defaultLabel, int[] keys, Label[] labels) {
			switchTo(defaultLabel, labels);
		}

		@Override
		public void visitLdcInsn(Object value) {
			if (this.stack != null) {
				int size = (value instanceof Long || value instanceof Double) ? 2
						: (value instanceof ConstantDynamic constant) ? constant.getSize() : 1;
				this.stack.replace(0, size);
			}
		}

		@Override
		public void visitMultiANewArrayInsn(String descriptor, int dimensions) {
			if (this.stack != null) {
				this.stack.replace(dimensions, 1);
			}
		}

		private void switchTo(Label defaultLabel, Label[] labels) {
			Slots stack = this.stack;
			if (stack == null) {
				return;
			}
			stack.pop(1);
			jumpTo(defaultLabel, stack);
			for (Label label : labels) {
				jumpTo(label, stack);
			}
			this.stack = null;
		}

		private void jumpTo(Label label, Slots stack) {
			this.jumpedTo.merge(label, stack.copy(), Slots::merge);
		}

		private void found(Dispatch dispatch, String owner, String name, String descriptor) {
			this.found.add(new Call(dispatch, owner, name, descriptor, ""));
		}

	}

	/** An operand stack, one entry per slot, bottom first: whether the slot holds {@code this}. */
	private static final class Slots {

		private boolean[] isThis;

		private int size;

		Slots() {
			this(new boolean[8], 0);
		}

		private Slots(boolean[] isThis, int size) {
			this.isThis = isThis;
			this.size = size;
		}

		static Slots others(int size) {
			return new Slots(new boolean[Math.max(size, 8)], size);
		}

		int size() {
			return this.size;
		}

		/** @param depth 0 for the top slot */
		boolean isThis(int depth) {
			int index = this.size - 1 - depth;
			return index >= 0 && this.isThis[index];
		}

		void push(boolean isThis) {
			if (this.size == this.isThis.length) {
				this.isThis = Arrays.copyOf(this.isThis, this.size * 2);
			}
			this.isThis[this.size++] = isThis;
		}

		/** Never below the bottom: a simulation gone wrong is put right by the next frame, not thrown. */
		void pop(int slots) {
			this.size = Math.max(0, this.size - slots);
		}

		/** Pops operands and pushes results that are not {@code this}. */
		void replace(int popped, int pushed) {
			pop(popped);
			for (int i = 0; i < pushed; i++) {
				push(false);
			}
		}

		/**
		 * The {@code dup} and {@code swap} family.
		 * @param taken how many slots are taken off
		 * @param order which taken slot (0 the deepest) goes back, bottom first
		 */
		void shuffle(int taken, int... order) {
			boolean[] operands = new boolean[taken];
			for (int i = 0; i < taken; i++) {
				operands[i] = isThis(taken - 1 - i);
			}
			pop(taken);
			for (int index : order) {
				push(operands[index]);
			}
		}

		Slots copy() {
			return new Slots(this.isThis.clone(), this.size);
		}

		/** Where paths meet, a slot holds {@code this} only if it does on each. */
		Slots merge(Slots other) {
			Slots merged = others(this.size);
			if (other.size == this.size) {
				for (int i = 0; i < this.size; i++) {
					merged.isThis[i] = this.isThis[i] && other.isThis[i];
				}
			}
			return merged;
		}

	}

}
