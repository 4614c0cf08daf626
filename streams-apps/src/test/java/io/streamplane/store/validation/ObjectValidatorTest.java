package io.streamplane.store.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.ClusterRole;
import io.streamplane.api.ConfigMap;
import io.streamplane.api.ObjectMeta;
import io.streamplane.log.StatusCause;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Names as Kubernetes validates them: RBAC objects are path segments, others DNS subdomains. */
class ObjectValidatorTest {

  @Test
  void rbacObjectsMayBeNamedWithColonsButNotWithSlashes() {
    assertThat(ObjectValidator.validate(clusterRole("system:controller:job-controller"), false))
        .isEmpty();
    List<StatusCause> slash = ObjectValidator.validate(clusterRole("a/b"), false);
    assertThat(slash)
        .extracting(StatusCause::getMessage)
        .containsExactly("Invalid value: \"a/b\": may not contain '/'");
    assertThat(ObjectValidator.validate(clusterRole(".."), false))
        .extracting(StatusCause::getMessage)
        .containsExactly("Invalid value: \"..\": may not be '..'");
    ConfigMap configMap =
        ConfigMap.newBuilder()
            .setMetadata(
                ObjectMeta.newBuilder().setName("system:x").setNamespace("default").build())
            .build();
    assertThat(ObjectValidator.validate(configMap, true)).hasSize(1);
  }

  private static ClusterRole clusterRole(String name) {
    return ClusterRole.newBuilder()
        .setMetadata(ObjectMeta.newBuilder().setName(name).build())
        .build();
  }
}
