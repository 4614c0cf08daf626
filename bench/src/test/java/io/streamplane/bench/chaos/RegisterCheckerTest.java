package io.streamplane.bench.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.bench.chaos.RegisterChecker.Kind;
import io.streamplane.bench.chaos.RegisterChecker.Op;
import io.streamplane.bench.chaos.RegisterChecker.Result;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RegisterCheckerTest {

  private static Op create(long id, String value, long version, long invoke, long complete) {
    return new Op(id, Kind.CREATE, Result.OK, 0, value, version, invoke, complete);
  }

  private static Op update(
      long id, long precondition, String value, long version, long invoke, long complete) {
    return new Op(id, Kind.UPDATE, Result.OK, precondition, value, version, invoke, complete);
  }

  private static Op conflict(long id, long precondition, String value, long invoke, long complete) {
    return new Op(id, Kind.UPDATE, Result.CONFLICT, precondition, value, 0, invoke, complete);
  }

  private static Op read(long id, String value, long version, long invoke, long complete) {
    return new Op(id, Kind.READ, Result.OK, 0, value, version, invoke, complete);
  }

  private static Op readAbsent(long id, long invoke, long complete) {
    return new Op(id, Kind.READ, Result.NOT_FOUND, 0, null, 0, invoke, complete);
  }

  private static Op delete(long id, long precondition, long invoke, long complete) {
    return new Op(id, Kind.DELETE, Result.OK, precondition, null, 0, invoke, complete);
  }

  @Test
  void aSequentialHistoryOfCompareAndSetsIsLinearizable() {
    List<Op> ops =
        List.of(
            create(1, "a", 1, 0, 10),
            update(2, 1, "b", 2, 20, 30),
            read(3, "b", 2, 40, 50),
            conflict(4, 1, "c", 60, 70),
            delete(5, 2, 80, 90),
            readAbsent(6, 100, 110),
            create(7, "d", 5, 120, 130));

    assertThat(RegisterChecker.check(ops).linearizable()).isTrue();
  }

  @Test
  void concurrentOperationsMayTakeEffectInEitherOrder() {
    // The read overlaps the update, so it may see the old or the new version; here the write
    // completes first in real time, yet the read took effect before it.
    List<Op> ops =
        List.of(
            create(1, "a", 1, 0, 10),
            update(2, 1, "b", 2, 20, 40),
            read(3, "a", 1, 25, 50),
            read(4, "b", 2, 30, 45));

    assertThat(RegisterChecker.check(ops).linearizable()).isTrue();
  }

  @Test
  void aStaleReadAfterAnAcknowledgedWriteIsRejected() {
    // The update was answered at 30; a read invoked at 40 must see it, yet saw version 1.
    List<Op> ops =
        List.of(create(1, "a", 1, 0, 10), update(2, 1, "b", 2, 20, 30), read(3, "a", 1, 40, 50));

    RegisterChecker.Verdict verdict = RegisterChecker.check(ops);

    assertThat(verdict.linearizable()).isFalse();
    assertThat(verdict.longestPrefix()).extracting(Op::id).containsExactly(1L, 2L);
  }

  @Test
  void twoCompareAndSetsFromTheSameVersionCannotBothSucceed() {
    // A lost update: both writers required version 1 and both were told they won.
    List<Op> ops =
        List.of(
            create(1, "a", 1, 0, 10),
            update(2, 1, "b", 2, 20, 40),
            update(3, 1, "c", 3, 21, 41),
            read(4, "c", 3, 50, 60));

    assertThat(RegisterChecker.check(ops).linearizable()).isFalse();
  }

  @Test
  void aConflictWhenTheVersionStillMatchesIsRejected() {
    List<Op> ops = List.of(create(1, "a", 1, 0, 10), conflict(2, 1, "b", 20, 30));

    assertThat(RegisterChecker.check(ops).linearizable()).isFalse();
  }

  @Test
  void aVersionGoingBackwardsIsRejected() {
    List<Op> ops = List.of(create(1, "a", 5, 0, 10), update(2, 5, "b", 3, 20, 30));

    assertThat(RegisterChecker.check(ops).linearizable()).isFalse();
  }

  @Test
  void aWriteWhoseAnswerNeverArrivedMayTakeEffectAfterLaterOperations() {
    // Timed out at the client; the log shows it applied as version 3, after the read at 40-50.
    List<Op> ops =
        List.of(
            create(1, "a", 1, 0, 10),
            update(2, 1, "b", 3, 20, Op.NEVER),
            read(3, "a", 1, 40, 50),
            read(4, "b", 3, 60, 70));

    assertThat(RegisterChecker.check(ops).linearizable()).isTrue();
  }

  @Test
  void aReadOfAValueNobodyWroteIsRejected() {
    List<Op> ops = List.of(create(1, "a", 1, 0, 10), read(2, "z", 1, 20, 30));

    assertThat(RegisterChecker.check(ops).linearizable()).isFalse();
  }

  @Test
  void aLongHistoryOfOverlappingCompareAndSetsIsLinearizable() {
    // Four clients doing compare-and-set rounds, overlapping; the versions follow the winners.
    List<Op> ops = new ArrayList<>();
    long id = 1;
    ops.add(create(id++, "v0", 1, 0, 5));
    long version = 1;
    long t = 10;
    for (int round = 0; round < 2_000; round++) {
      long next = version + 4;
      ops.add(update(id++, version, "r" + round, next, t, t + 8));
      for (int c = 1; c < 4; c++) {
        ops.add(conflict(id++, version, "x" + round + c, t + c, t + 9 + c));
      }
      ops.add(read(id++, "r" + round, next, t + 9, t + 20));
      version = next;
      t += 21;
    }

    RegisterChecker.Verdict verdict = RegisterChecker.check(ops);

    assertThat(verdict.linearizable()).isTrue();
    assertThat(verdict.operations()).isEqualTo(1 + 2_000 * 5);
  }
}
