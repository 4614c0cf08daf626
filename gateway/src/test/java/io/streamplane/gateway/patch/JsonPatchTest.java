package io.streamplane.gateway.patch;

import static io.streamplane.gateway.patch.Json.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

class JsonPatchTest {

  private static final JsonNode POD =
      json(
          "{'metadata':{'labels':{'app':'web'}},'spec':{'containers':[{'name':'a'},{'name':'b'}]}}");

  @Test
  void addSetsAnObjectMemberAndInsertsIntoAList() {
    JsonNode result =
        JsonPatch.apply(
            POD,
            json(
                "[{'op':'add','path':'/metadata/labels/tier','value':'front'},"
                    + "{'op':'add','path':'/spec/containers/1','value':{'name':'x'}}]"));

    assertThat(result.at("/metadata/labels")).isEqualTo(json("{'app':'web','tier':'front'}"));
    assertThat(result.at("/spec/containers"))
        .isEqualTo(json("[{'name':'a'},{'name':'x'},{'name':'b'}]"));
  }

  @Test
  void dashAppendsToAList() {
    JsonNode result =
        JsonPatch.apply(
            POD, json("[{'op':'add','path':'/spec/containers/-','value':{'name':'c'}}]"));

    assertThat(result.at("/spec/containers/2/name").textValue()).isEqualTo("c");
  }

  @Test
  void tildeEscapesAddressKeysContainingSlashAndTilde() {
    JsonNode result =
        JsonPatch.apply(
            json("{'metadata':{'annotations':{}}}"),
            json("[{'op':'add','path':'/metadata/annotations/example.com~1a~0b','value':'v'}]"));

    assertThat(result.at("/metadata/annotations").get("example.com/a~b").textValue())
        .isEqualTo("v");
  }

  @Test
  void removeReplaceMoveAndCopy() {
    JsonNode result =
        JsonPatch.apply(
            POD,
            json(
                "[{'op':'remove','path':'/spec/containers/0'},"
                    + "{'op':'replace','path':'/metadata/labels/app','value':'api'},"
                    + "{'op':'copy','from':'/metadata/labels/app','path':'/metadata/labels/copy'},"
                    + "{'op':'move','from':'/metadata/labels/copy','path':'/metadata/moved'}]"));

    assertThat(result)
        .isEqualTo(
            json(
                "{'metadata':{'labels':{'app':'api'},'moved':'api'},"
                    + "'spec':{'containers':[{'name':'b'}]}}"));
  }

  @Test
  void replaceOfTheRootReplacesTheDocument() {
    JsonNode result = JsonPatch.apply(POD, json("[{'op':'replace','path':'','value':{'a':1}}]"));

    assertThat(result).isEqualTo(json("{'a':1}"));
  }

  @Test
  void testComparesNumbersByValue() {
    JsonNode result =
        JsonPatch.apply(
            json("{'spec':{'replicas':3}}"),
            json(
                "[{'op':'test','path':'/spec/replicas','value':3.0},"
                    + "{'op':'replace','path':'/spec/replicas','value':5}]"));

    assertThat(result.at("/spec/replicas").intValue()).isEqualTo(5);
  }

  @Test
  void aFailedTestIsUnprocessableAndLeavesTheOriginalUntouched() {
    JsonNode original = json("{'spec':{'replicas':3}}");

    assertRefused(
            original,
            "[{'op':'replace','path':'/spec/replicas','value':5},"
                + "{'op':'test','path':'/spec/replicas','value':4}]",
            422)
        .hasMessageContaining("operation 1 (test)")
        .hasMessageContaining("\"/spec/replicas\"");
    assertThat(original).isEqualTo(json("{'spec':{'replicas':3}}"));
  }

  @Test
  void aPathThatDoesNotExistIsUnprocessable() {
    assertRefused(POD, "[{'op':'remove','path':'/metadata/annotations/x'}]", 422)
        .hasMessageContaining("does not exist");
    assertRefused(POD, "[{'op':'replace','path':'/spec/nodeName','value':'n'}]", 422);
    assertRefused(POD, "[{'op':'add','path':'/status/phase','value':'Running'}]", 422);
  }

  @Test
  void listIndexesMustBeInBoundsAndWithoutLeadingZeros() {
    assertRefused(POD, "[{'op':'add','path':'/spec/containers/3','value':{}}]", 422)
        .hasMessageContaining("out of bounds");
    assertRefused(POD, "[{'op':'remove','path':'/spec/containers/01'}]", 422)
        .hasMessageContaining("not a list index");
    assertRefused(POD, "[{'op':'remove','path':'/spec/containers/-1'}]", 422);
  }

  @Test
  void malformedOperationsAreUnprocessable() {
    assertRefused(POD, "[{'op':'frobnicate','path':'/a'}]", 422).hasMessageContaining("frobnicate");
    assertRefused(POD, "[{'op':'add','path':'/a'}]", 422).hasMessageContaining("\"value\"");
    assertRefused(POD, "[{'op':'add','value':1}]", 422).hasMessageContaining("\"path\"");
    assertRefused(POD, "[{'op':'add','path':'a','value':1}]", 422)
        .hasMessageContaining("start with /");
    assertRefused(POD, "[{'op':'add','path':'/a~2','value':1}]", 422);
  }

  @Test
  void aValueCannotBeMovedIntoItsOwnChild() {
    assertRefused(POD, "[{'op':'move','from':'/metadata','path':'/metadata/labels/m'}]", 422);
  }

  @Test
  void aBodyThatIsNotAListOfOperationsIsABadRequest() {
    assertRefused(POD, "{'op':'add'}", 400);
    assertRefused(POD, "['add']", 400);
  }

  @Test
  void moreOperationsThanKubernetesAllowsIsTooLarge() {
    StringBuilder ops = new StringBuilder("[");
    for (int i = 0; i <= JsonPatch.MAX_OPERATIONS; i++) {
      ops.append(i == 0 ? "" : ",").append("{'op':'test','path':'','value':{}}");
    }
    assertRefused(POD, ops.append(']').toString(), 413);
  }

  private static AbstractThrowableAssert<?, ? extends Throwable> assertRefused(
      JsonNode original, String patch, int code) {
    return assertThatThrownBy(() -> JsonPatch.apply(original, json(patch)))
        .isInstanceOfSatisfying(PatchException.class, e -> assertThat(e.code()).isEqualTo(code));
  }
}
