package io.streamplane.gateway.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.cache.ListVersion;
import org.junit.jupiter.api.Test;

class ReadAtTest {

  @Test
  void withoutExactAReadIsTheLatestOrAnyVersion() {
    assertThat(ReadAt.ofList(null, null, null)).isInstanceOf(ReadAt.Latest.class);
    assertThat(ReadAt.ofList("0", null, null)).isInstanceOf(ReadAt.Any.class);
    assertThat(ReadAt.ofList("0", "NotOlderThan", null)).isInstanceOf(ReadAt.Any.class);
    assertThat(ReadAt.ofList("L1.2", "NotOlderThan", null)).isInstanceOf(ReadAt.Latest.class);
    assertThat(ReadAt.ofGet("17", null)).isInstanceOf(ReadAt.Latest.class);
  }

  @Test
  void exactNamesAListsVersionOrOnAGetAnObjectsVersion() {
    assertThat(ReadAt.ofList("L3.0.7", "Exact", null))
        .isEqualTo(new ReadAt.Exact(new ListVersion(new long[] {3, 0, 7})));
    assertThat(ReadAt.ofGet("L3.0.7", "Exact"))
        .isEqualTo(new ReadAt.Exact(new ListVersion(new long[] {3, 0, 7})));
    assertThat(ReadAt.ofGet("42", "Exact")).isEqualTo(new ReadAt.ExactObject(42));
  }

  @Test
  void listOptionsAreRefusedAsKubeApiserverRefusesThem() {
    assertThat(refusal(() -> ReadAt.ofList(null, "Exact", null)))
        .isEqualTo(
            "422 ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden:"
                + " resourceVersionMatch is forbidden unless resourceVersion is provided");
    assertThat(refusal(() -> ReadAt.ofList("L1", "Exact", "token")))
        .contains("resourceVersionMatch is forbidden when continue is provided");
    assertThat(refusal(() -> ReadAt.ofList("0", "Exact", null)))
        .contains("resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
    assertThat(refusal(() -> ReadAt.ofList("L1", "Sometimes", null)))
        .contains(
            "resourceVersionMatch: Unsupported value: \"Sometimes\": supported values:"
                + " \"Exact\", \"NotOlderThan\", \"\"");
    assertThat(refusal(() -> ReadAt.ofGet(null, "Exact"))).startsWith("422 GetOptions");
  }

  @Test
  void aListAtAnObjectsVersionOrAtNoVersionIsABadRequest() {
    assertThat(refusal(() -> ReadAt.ofList("42", "Exact", null)))
        .startsWith("400 resourceVersion \"42\" is an object's version");
    assertThat(refusal(() -> ReadAt.ofGet("yesterday", "Exact")))
        .isEqualTo("400 invalid resourceVersion \"yesterday\": not a version");
  }

  private static String refusal(Runnable parse) {
    try {
      parse.run();
    } catch (ApiException e) {
      return e.code() + " " + e.status().path("message").asText();
    }
    throw new AssertionError("accepted");
  }
}
