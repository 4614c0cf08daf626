package io.streamplane.gateway.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class ApplyStatusesTest {

  private static final List<PathElement> REPLICAS =
      List.of(PathElement.field("spec"), PathElement.field("replicas"));
  private static final List<PathElement> CONDITIONS =
      List.of(PathElement.field("status"), PathElement.field("conditions"));

  @Test
  void oneConflictWithAnUpdaterNamesItsVersionAndSubresource() {
    ManagedFieldsEntry scaler =
        new ManagedFieldsEntry("hpa", "Update", "autoscaling/v1", null, "scale", new FieldSet());

    ObjectNode status =
        ApplyStatuses.conflict(List.of(new FieldManager.Conflict(scaler, REPLICAS)));

    assertThat(status.path("code").asInt()).isEqualTo(409);
    assertThat(status.path("reason").asText()).isEqualTo("Conflict");
    assertThat(status.path("message").asText())
        .isEqualTo(
            "Apply failed with 1 conflict: conflict with \"hpa\" with subresource \"scale\""
                + " using autoscaling/v1: .spec.replicas");
    assertThat(status.path("details").path("causes").get(0).toString())
        .isEqualTo(
            "{\"reason\":\"FieldManagerConflict\",\"message\":\"conflict with \\\"hpa\\\" with"
                + " subresource \\\"scale\\\" using autoscaling/v1\",\"field\":\".spec.replicas\"}");
  }

  @Test
  void severalConflictsAreCountedAndListedPerManager() {
    ManagedFieldsEntry a = new ManagedFieldsEntry("a", "Apply", "apps/v1", null, "", null);
    ManagedFieldsEntry b = new ManagedFieldsEntry("b", "Apply", "apps/v1", null, "", null);

    ObjectNode status =
        ApplyStatuses.conflict(
            List.of(
                new FieldManager.Conflict(a, REPLICAS),
                new FieldManager.Conflict(a, CONDITIONS),
                new FieldManager.Conflict(b, REPLICAS)));

    assertThat(status.path("message").asText())
        .isEqualTo(
            "Apply failed with 3 conflicts: conflicts with \"a\":\n- .spec.replicas\n"
                + "- .status.conditions\nconflicts with \"b\":\n- .spec.replicas");
  }

  @Test
  void fieldManagersAreCheckedAsKubeApiserverChecksThem() {
    assertThat(ApplyStatuses.invalidOptions("PatchOptions", "kubectl", false, true)).isNull();
    assertThat(ApplyStatuses.invalidOptions("UpdateOptions", null, false, false)).isNull();
    assertThat(
            ApplyStatuses.invalidOptions("UpdateOptions", "a\u0007b", false, false)
                .path("message")
                .asText())
        .startsWith("UpdateOptions.meta.k8s.io \"\" is invalid: fieldManager: Invalid value: ")
        .endsWith(": invalid character U+0007 (at position 1)");
    assertThat(
            ApplyStatuses.invalidOptions("PatchOptions", "", true, false).path("message").asText())
        .isEqualTo(
            "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for"
                + " non-apply patch");
  }
}
