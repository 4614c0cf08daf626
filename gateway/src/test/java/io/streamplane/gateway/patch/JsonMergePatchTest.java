package io.streamplane.gateway.patch;

import static io.streamplane.gateway.patch.Json.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class JsonMergePatchTest {

  @Test
  void nullDeletesAKeyAndOtherValuesMergeRecursively() {
    JsonNode original = json("{'metadata':{'labels':{'a':'1','b':'2'}},'spec':{'replicas':1}}");

    JsonNode result =
        JsonMergePatch.apply(original, json("{'metadata':{'labels':{'a':null,'c':'3'}}}"));

    assertThat(result)
        .isEqualTo(json("{'metadata':{'labels':{'b':'2','c':'3'}},'spec':{'replicas':1}}"));
  }

  @Test
  void listsAreReplacedWholeEvenWhenKubernetesWouldMergeThem() {
    JsonNode original = json("{'spec':{'containers':[{'name':'a'},{'name':'b'}]}}");

    JsonNode result =
        JsonMergePatch.apply(original, json("{'spec':{'containers':[{'name':'c'}]}}"));

    assertThat(result).isEqualTo(json("{'spec':{'containers':[{'name':'c'}]}}"));
  }

  @Test
  void nullsInsideANewSubtreeAreDropped() {
    JsonNode result = JsonMergePatch.apply(json("{'a':'b'}"), json("{'c':{'d':null,'e':1}}"));

    assertThat(result).isEqualTo(json("{'a':'b','c':{'e':1}}"));
  }

  @Test
  void anObjectReplacesAScalarAndAScalarReplacesAnObject() {
    JsonNode result =
        JsonMergePatch.apply(json("{'a':'x','b':{'c':1}}"), json("{'a':{'y':1},'b':'z'}"));

    assertThat(result).isEqualTo(json("{'a':{'y':1},'b':'z'}"));
  }

  @Test
  void theOriginalIsNotModified() {
    JsonNode original = json("{'a':{'b':1}}");

    JsonMergePatch.apply(original, json("{'a':{'b':null}}"));

    assertThat(original).isEqualTo(json("{'a':{'b':1}}"));
  }

  @Test
  void aPatchThatIsNotAnObjectIsABadRequest() {
    assertThatThrownBy(() -> JsonMergePatch.apply(json("{'a':1}"), json("[1]")))
        .isInstanceOfSatisfying(PatchException.class, e -> assertThat(e.code()).isEqualTo(400))
        .hasMessageContaining("JSON object");
  }
}
