package io.streamplane.kinds.apiextensions;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class KubeVersionsTest {

  @Test
  void gaBeforeBetaBeforeAlphaEachByNumberThenOtherNames() {
    List<String> versions =
        new ArrayList<>(
            List.of(
                "foo10",
                "v1",
                "v11alpha2",
                "v3beta1",
                "v2",
                "v10beta3",
                "foo1",
                "v12alpha1",
                "v10",
                "v11beta2"));
    versions.sort((a, b) -> KubeVersions.compare(b, a));
    assertThat(versions)
        .containsExactly(
            "v10",
            "v2",
            "v1",
            "v11beta2",
            "v10beta3",
            "v3beta1",
            "v12alpha1",
            "v11alpha2",
            "foo1",
            "foo10");
  }
}
