package io.streamplane.bench.measure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcessCpuTest {

  @Test
  void sumsUserAndSystemTicksCountingFieldsAfterTheCommandName() {
    String stat =
        "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 1250 250 0 0 20 0 50 0 100"
            + " 8000000 2000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

    assertThat(ProcessCpu.cpuSeconds(stat)).isEqualTo(15.0);
  }

  @Test
  void aProcessThatIsNotThereReadsAsMinusOne() {
    assertThat(ProcessCpu.read(Long.MAX_VALUE)).isEqualTo(-1);
  }

  @Test
  void thisProcessHasUsedSomeCpu() {
    assertThat(ProcessCpu.read(ProcessHandle.current().pid())).isGreaterThanOrEqualTo(0);
  }
}
