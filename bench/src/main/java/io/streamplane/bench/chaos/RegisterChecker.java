package io.streamplane.bench.chaos;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Decides whether one object's history of operations is linearizable as a single register whose
 * writes carry resourceVersion preconditions: is there one order of the operations, consistent with
 * real time (an operation that completed before another was invoked comes first), in which each
 * one's answer is the answer a register would give at that point? This is the Wing-Gong search with
 * Lowe's memo of (operations linearized, register state) pairs already explored, as Knossos and
 * Porcupine implement it.
 *
 * <p>The register: absent, or present with a resourceVersion and a value. A create succeeds only on
 * an absent register; an update or delete with a precondition only when the version matches (409
 * Conflict otherwise, 404 when absent); a read sees the current version and value. Versions of one
 * object increase with every write (they are offsets of one log partition), which the model checks
 * too.
 *
 * <p>Operations whose outcome the client does not know (timeouts, connection errors) must be
 * resolved by the caller before the check: a write found in the log becomes an acknowledged write
 * with the version the log gave it and no completion time ({@link Op#NEVER}); one not found is left
 * out; an unanswered read is left out.
 *
 * <p>Limits: the search is exponential in the number of concurrently pending operations in the
 * worst case; the memo keeps histories from a handful of clients linear in practice.
 */
public final class RegisterChecker {

  /** What an operation did. */
  public enum Kind {
    CREATE,
    UPDATE,
    DELETE,
    READ
  }

  /** How it was answered. */
  public enum Result {
    OK,
    NOT_FOUND,
    CONFLICT
  }

  /**
   * One operation on the register.
   *
   * @param precondition for UPDATE and DELETE: the resourceVersion it required, 0 for none
   * @param value for CREATE and UPDATE: the value written; for a READ answered OK: the value read
   * @param version for OK writes: the version the write produced; for a READ answered OK: the
   *     version read (0 when unknown, for an OK DELETE)
   * @param invoke when the client sent it (any clock, the same for every operation)
   * @param complete when the answer arrived, {@link #NEVER} when it never did
   */
  public record Op(
      long id,
      Kind kind,
      Result result,
      long precondition,
      String value,
      long version,
      long invoke,
      long complete) {
    public static final long NEVER = Long.MAX_VALUE;

    @Override
    public String toString() {
      return "#"
          + id
          + " "
          + kind
          + (precondition != 0 ? "(rv=" + precondition + ")" : "")
          + (value != null && kind != Kind.READ ? "(" + value + ")" : "")
          + " -> "
          + result
          + (result == Result.OK && version != 0 ? " rv=" + version : "")
          + (kind == Kind.READ && result == Result.OK ? " " + value : "")
          + " ["
          + invoke
          + ", "
          + (complete == NEVER ? "never" : complete)
          + "]";
    }
  }

  /** The verdict: linearizable, or not with the longest prefix the search could order. */
  public record Verdict(boolean linearizable, int operations, List<Op> longestPrefix) {}

  /** The register's state; {@code highest} is the highest version it has had. */
  record State(boolean exists, long version, String value, long highest) {
    static final State ABSENT = new State(false, 0, null, 0);
  }

  private RegisterChecker() {}

  /** Checks {@code ops}, starting from {@code initial} (usually absent). */
  public static Verdict check(List<Op> ops, State initial) {
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      Entry call = new Entry(i, op, true, op.invoke());
      Entry ret = new Entry(i, op, false, op.complete());
      call.match = ret;
      entries.add(call);
      entries.add(ret);
    }
    // At equal times a return comes before a call: the earlier operation is taken to precede.
    entries.sort(
        Comparator.comparingLong((Entry e) -> e.time)
            .thenComparing(e -> e.call)
            .thenComparingInt(e -> e.index));
    Entry head = new Entry(-1, null, false, Long.MIN_VALUE);
    Entry previous = head;
    for (Entry e : entries) {
      previous.next = e;
      e.prev = previous;
      previous = e;
    }

    State state = initial;
    BitSet linearized = new BitSet(ops.size());
    Set<Memo> seen = new HashSet<>();
    Deque<Frame> stack = new ArrayDeque<>();
    List<Op> longest = List.of();
    Entry entry = head.next;
    while (head.next != null) {
      if (entry.call) {
        State next = step(state, entry.op);
        if (next != null) {
          BitSet after = (BitSet) linearized.clone();
          after.set(entry.index);
          if (seen.add(new Memo(after, next))) {
            stack.push(new Frame(entry, state));
            state = next;
            linearized = after;
            entry.lift();
            if (stack.size() > longest.size()) {
              List<Op> prefix = new ArrayList<>(stack.stream().map(f -> f.entry.op).toList());
              Collections.reverse(prefix);
              longest = prefix;
            }
            entry = head.next;
            continue;
          }
        }
        entry = entry.next;
      } else {
        if (stack.isEmpty()) {
          return new Verdict(false, ops.size(), longest);
        }
        Frame top = stack.pop();
        state = top.state;
        linearized.clear(top.entry.index);
        top.entry.unlift();
        entry = top.entry.next;
      }
    }
    return new Verdict(true, ops.size(), longest);
  }

  /** Checks {@code ops} on a register that is absent at first. */
  public static Verdict check(List<Op> ops) {
    return check(ops, State.ABSENT);
  }

  /** The register after {@code op}, or null when {@code op}'s answer is impossible in {@code s}. */
  static State step(State s, Op op) {
    return switch (op.kind()) {
      case CREATE ->
          switch (op.result()) {
            case OK ->
                !s.exists() && op.version() > s.highest()
                    ? new State(true, op.version(), op.value(), op.version())
                    : null;
            case CONFLICT -> s.exists() ? s : null;
            case NOT_FOUND -> null;
          };
      case UPDATE ->
          switch (op.result()) {
            case OK ->
                s.exists()
                        && (op.precondition() == 0 || op.precondition() == s.version())
                        && op.version() > s.highest()
                    ? new State(true, op.version(), op.value(), op.version())
                    : null;
            case CONFLICT ->
                s.exists() && op.precondition() != 0 && op.precondition() != s.version() ? s : null;
            case NOT_FOUND -> s.exists() ? null : s;
          };
      case DELETE ->
          switch (op.result()) {
            case OK ->
                s.exists() && (op.precondition() == 0 || op.precondition() == s.version())
                    ? new State(false, 0, null, Math.max(s.highest(), op.version()))
                    : null;
            case CONFLICT ->
                s.exists() && op.precondition() != 0 && op.precondition() != s.version() ? s : null;
            case NOT_FOUND -> s.exists() ? null : s;
          };
      case READ ->
          switch (op.result()) {
            case OK ->
                s.exists() && s.version() == op.version() && Objects.equals(s.value(), op.value())
                    ? s
                    : null;
            case NOT_FOUND -> s.exists() ? null : s;
            case CONFLICT -> null;
          };
    };
  }

  private record Memo(BitSet linearized, State state) {}

  private record Frame(Entry entry, State state) {}

  /** A call or return in the doubly linked list the search lifts operations out of. */
  private static final class Entry {
    final int index;
    final Op op;
    final boolean call;
    final long time;
    Entry match;
    Entry prev;
    Entry next;

    Entry(int index, Op op, boolean call, long time) {
      this.index = index;
      this.op = op;
      this.call = call;
      this.time = time;
    }

    /** Takes this call and its return out of the list. */
    void lift() {
      prev.next = next;
      if (next != null) {
        next.prev = prev;
      }
      match.prev.next = match.next;
      if (match.next != null) {
        match.next.prev = match.prev;
      }
    }

    /** Puts them back, in the reverse order of {@link #lift}. */
    void unlift() {
      match.prev.next = match;
      if (match.next != null) {
        match.next.prev = match;
      }
      prev.next = this;
      if (next != null) {
        next.prev = this;
      }
    }
  }
}
