package io.streamplane.gateway.patch;

import static io.streamplane.gateway.patch.Json.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

/** Each rule and directive of the strategic merge patch, one at a time, on a Pod. */
class StrategicMergePatchTest {

  private static final PatchSchema POD = PatchSchema.forKind("v1", "Pod").orElseThrow();
  private static final PatchSchema DEPLOYMENT =
      PatchSchema.forKind("apps/v1", "Deployment").orElseThrow();

  private static JsonNode pod(String spec) {
    return json("{'apiVersion':'v1','kind':'Pod','metadata':{'name':'p'},'spec':" + spec + "}");
  }

  private static JsonNode patchPod(JsonNode original, String patch) {
    return StrategicMergePatch.apply(original, json(patch), POD);
  }

  @Test
  void mapsMergeRecursivelyAndNullDeletesAKey() {
    JsonNode original = json("{'metadata':{'labels':{'a':'1','b':'2'},'name':'p'}}");

    JsonNode result = patchPod(original, "{'metadata':{'labels':{'a':null,'c':'3'}}}");

    assertThat(result).isEqualTo(json("{'metadata':{'labels':{'b':'2','c':'3'},'name':'p'}}"));
  }

  @Test
  void nullsInAMapTheObjectLacksAreDroppedLeavingTheMapEmpty() {
    JsonNode result =
        patchPod(json("{'metadata':{'name':'p'}}"), "{'metadata':{'labels':{'x':null}}}");

    assertThat(result).isEqualTo(json("{'metadata':{'name':'p','labels':{}}}"));
  }

  @Test
  void aListWithoutMergeStrategyIsReplaced() {
    JsonNode original =
        pod("{'tolerations':[{'key':'a','operator':'Exists'},{'key':'b','operator':'Exists'}]}");

    JsonNode result =
        patchPod(original, "{'spec':{'tolerations':[{'key':'c','operator':'Exists'}]}}");

    assertThat(result.at("/spec/tolerations")).isEqualTo(json("[{'key':'c','operator':'Exists'}]"));
  }

  @Test
  void containerStatusesAreReplacedThoughTheirElementsCarryTags() {
    JsonNode original =
        json(
            "{'status':{'containerStatuses':[{'name':'a','ready':true,"
                + "'volumeMounts':[{'mountPath':'/x','name':'v'}]},{'name':'b','ready':true}]}}");

    JsonNode result =
        patchPod(original, "{'status':{'containerStatuses':[{'name':'a','ready':false}]}}");

    assertThat(result.at("/status/containerStatuses"))
        .isEqualTo(json("[{'name':'a','ready':false}]"));
  }

  @Test
  void aMergeListUpdatesTheElementWithTheSameMergeKey() {
    JsonNode original =
        pod("{'containers':[{'name':'a','image':'a:1','args':['x']},{'name':'b','image':'b:1'}]}");

    JsonNode result = patchPod(original, "{'spec':{'containers':[{'name':'b','image':'b:2'}]}}");

    assertThat(result.at("/spec/containers"))
        .isEqualTo(json("[{'name':'a','image':'a:1','args':['x']},{'name':'b','image':'b:2'}]"));
  }

  @Test
  void withoutSetElementOrderANewElementGoesBeforeTheLiveOnes() {
    JsonNode original = pod("{'containers':[{'name':'a'},{'name':'b'}]}");

    JsonNode result = patchPod(original, "{'spec':{'containers':[{'name':'c'}]}}");

    assertThat(result.at("/spec/containers"))
        .isEqualTo(json("[{'name':'c'},{'name':'a'},{'name':'b'}]"));
  }

  @Test
  void mergeKeysCompareNumbersByValue() {
    JsonNode original = pod("{'containers':[{'name':'a','ports':[{'containerPort':80}]}]}");

    JsonNode result =
        patchPod(
            original,
            "{'spec':{'containers':[{'name':'a','ports':[{'containerPort':80.0,'name':'http'}]}]}}");

    assertThat(result.at("/spec/containers/0/ports")).hasSize(1);
    assertThat(result.at("/spec/containers/0/ports/0/name").textValue()).isEqualTo("http");
  }

  @Test
  void deleteDirectiveRemovesTheElementWithThatMergeKey() {
    JsonNode original = pod("{'volumes':[{'name':'a','emptyDir':{}},{'name':'b','emptyDir':{}}]}");

    JsonNode result = patchPod(original, "{'spec':{'volumes':[{'name':'a','$patch':'delete'}]}}");

    assertThat(result.at("/spec/volumes")).isEqualTo(json("[{'name':'b','emptyDir':{}}]"));
  }

  @Test
  void deleteDirectiveWithoutTheMergeKeyIsABadRequest() {
    assertRefused(
            pod("{'volumes':[{'name':'a'}]}"), "{'spec':{'volumes':[{'$patch':'delete'}]}}", 400)
        .hasMessageContaining("spec.volumes")
        .hasMessageContaining("merge key: name");
  }

  @Test
  void replaceDirectiveInAListReplacesTheWholeList() {
    JsonNode original = pod("{'containers':[{'name':'a','image':'a:1'},{'name':'b'}]}");

    JsonNode result =
        patchPod(
            original, "{'spec':{'containers':[{'$patch':'replace'},{'name':'c','image':'c:1'}]}}");

    assertThat(result.at("/spec/containers")).isEqualTo(json("[{'name':'c','image':'c:1'}]"));
  }

  @Test
  void replaceDirectiveOnAMapReplacesTheMap() {
    JsonNode original = json("{'metadata':{'labels':{'a':'1','b':'2'}}}");

    JsonNode result = patchPod(original, "{'metadata':{'labels':{'$patch':'replace','c':'3'}}}");

    assertThat(result).isEqualTo(json("{'metadata':{'labels':{'c':'3'}}}"));
  }

  @Test
  void replaceDirectiveOnTheTopLevelReplacesTheObject() {
    JsonNode result = patchPod(pod("{'nodeName':'n'}"), "{'$patch':'replace','kind':'Pod'}");

    assertThat(result).isEqualTo(json("{'kind':'Pod'}"));
  }

  @Test
  void deleteDirectiveOnAMapEmptiesItAndDoesNotCreateAMissingOne() {
    JsonNode original = pod("{'securityContext':{'runAsUser':1}}");

    JsonNode result =
        patchPod(
            original,
            "{'spec':{'securityContext':{'$patch':'delete'},'affinity':{'$patch':'delete'}}}");

    assertThat(result.at("/spec")).isEqualTo(json("{'securityContext':{}}"));
  }

  @Test
  void mergeDirectiveIsRefusedOnMapsAndListsAsApimachineryRefusesIt() {
    JsonNode original = pod("{'containers':[{'name':'a'}],'securityContext':{}}");

    assertRefused(original, "{'spec':{'securityContext':{'$patch':'merge','runAsUser':1}}}", 400)
        .hasMessageContaining("unknown patch type: merge");
    assertRefused(original, "{'spec':{'containers':[{'$patch':'merge'},{'name':'b'}]}}", 400)
        .hasMessageContaining("merging lists cannot yet be specified");
  }

  @Test
  void unknownPatchDirectiveIsABadRequest() {
    assertRefused(pod("{'containers':[{'name':'a'}]}"), "{'spec':{'$patch':'frobnicate'}}", 400)
        .hasMessageContaining("frobnicate");
  }

  @Test
  void setElementOrderReordersAMergeList() {
    JsonNode original = pod("{'containers':[{'name':'a'},{'name':'b'},{'name':'c'}]}");

    JsonNode result =
        patchPod(
            original,
            "{'spec':{'$setElementOrder/containers':[{'name':'c'},{'name':'b'},{'name':'a'}]}}");

    assertThat(result.at("/spec/containers"))
        .isEqualTo(json("[{'name':'c'},{'name':'b'},{'name':'a'}]"));
  }

  @Test
  void setElementOrderPlacesAnAddedElementWhereTheOrderSays() {
    JsonNode original = pod("{'containers':[{'name':'a'},{'name':'b'}]}");

    JsonNode result =
        patchPod(
            original,
            "{'spec':{'$setElementOrder/containers':[{'name':'a'},{'name':'x'},{'name':'b'}],"
                + "'containers':[{'name':'x'}]}}");

    assertThat(result.at("/spec/containers"))
        .isEqualTo(json("[{'name':'a'},{'name':'x'},{'name':'b'}]"));
  }

  @Test
  void setElementOrderKeepsElementsOnlyTheServerHasBeforeTheOrderedOnesTheyPreceded() {
    JsonNode original = pod("{'containers':[{'name':'a'},{'name':'server'},{'name':'b'}]}");

    JsonNode result =
        patchPod(original, "{'spec':{'$setElementOrder/containers':[{'name':'b'},{'name':'a'}]}}");

    assertThat(result.at("/spec/containers"))
        .isEqualTo(json("[{'name':'server'},{'name':'b'},{'name':'a'}]"));
  }

  @Test
  void setElementOrderPutsAnAddedElementInTheSlotADeletionFreedAsApimachineryDoes() {
    // apimachinery orders against the live list as its delete-then-append rewrote it in place:
    // [x,y,z] minus x plus w reads [y,z,w], so the server-only z stays before the added w.
    JsonNode original = pod("{'containers':[{'name':'x'},{'name':'y'},{'name':'z'}]}");

    JsonNode result =
        patchPod(
            original,
            "{'spec':{'$setElementOrder/containers':[{'name':'y'},{'name':'w'}],"
                + "'containers':[{'name':'w'},{'name':'x','$patch':'delete'}]}}");

    assertThat(result.at("/spec/containers"))
        .isEqualTo(json("[{'name':'y'},{'name':'z'},{'name':'w'}]"));
  }

  @Test
  void setElementOrderThatContradictsThePatchListIsABadRequest() {
    assertRefused(
            pod("{'containers':[{'name':'a'},{'name':'b'}]}"),
            "{'spec':{'$setElementOrder/containers':[{'name':'a'},{'name':'b'}],"
                + "'containers':[{'name':'b'},{'name':'a'}]}}",
            400)
        .hasMessageContaining("setElementOrder");
  }

  @Test
  void retainKeysClearsFieldsNotListed() {
    JsonNode original =
        json(
            "{'spec':{'replicas':1,'strategy':{'type':'RollingUpdate',"
                + "'rollingUpdate':{'maxSurge':'25%','maxUnavailable':'25%'}}}}");

    JsonNode result =
        StrategicMergePatch.apply(
            original,
            json("{'spec':{'strategy':{'$retainKeys':['type'],'type':'Recreate'}}}"),
            DEPLOYMENT);

    assertThat(result).isEqualTo(json("{'spec':{'replicas':1,'strategy':{'type':'Recreate'}}}"));
  }

  @Test
  void retainKeysInAListElementSwitchesAVolumeSource() {
    JsonNode original = pod("{'volumes':[{'name':'v','emptyDir':{}}]}");

    JsonNode result =
        patchPod(
            original,
            "{'spec':{'volumes':[{'$retainKeys':['configMap','name'],'name':'v',"
                + "'configMap':{'name':'cm'}}]}}");

    assertThat(result.at("/spec/volumes"))
        .isEqualTo(json("[{'name':'v','configMap':{'name':'cm'}}]"));
  }

  @Test
  void retainKeysMustListEveryFieldThePatchSets() {
    assertRefused(
            pod("{'volumes':[{'name':'v','emptyDir':{}}]}"),
            "{'spec':{'volumes':[{'$retainKeys':['name'],'name':'v','configMap':{'name':'cm'}}]}}",
            400)
        .hasMessageContaining("configMap");
  }

  @Test
  void aPrimitiveMergeListIsMergedAsASet() {
    JsonNode original = json("{'metadata':{'finalizers':['a','b']}}");

    JsonNode result = patchPod(original, "{'metadata':{'finalizers':['b','c']}}");

    assertThat(result.at("/metadata/finalizers")).isEqualTo(json("['a','b','c']"));
  }

  @Test
  void aPrimitiveListWithoutMergeStrategyIsReplaced() {
    JsonNode original = pod("{'containers':[{'name':'a','args':['x','y']}]}");

    JsonNode result = patchPod(original, "{'spec':{'containers':[{'name':'a','args':['z']}]}}");

    assertThat(result.at("/spec/containers/0/args")).isEqualTo(json("['z']"));
  }

  @Test
  void deleteFromPrimitiveListRemovesTheListedValues() {
    JsonNode original = json("{'metadata':{'finalizers':['a','b','c']}}");

    JsonNode result =
        patchPod(
            original,
            "{'metadata':{'$deleteFromPrimitiveList/finalizers':['b'],"
                + "'$setElementOrder/finalizers':['c','a']}}");

    assertThat(result.at("/metadata/finalizers")).isEqualTo(json("['c','a']"));
  }

  @Test
  void ownerReferencesMergeByUid() {
    JsonNode original =
        json("{'metadata':{'ownerReferences':[{'uid':'1','kind':'ReplicaSet','name':'rs'}]}}");

    JsonNode result =
        patchPod(
            original, "{'metadata':{'ownerReferences':[{'uid':'2','kind':'Node','name':'n'}]}}");

    assertThat(result.at("/metadata/ownerReferences")).hasSize(2);
  }

  @Test
  void statusConditionsMergeByType() {
    JsonNode original =
        json(
            "{'status':{'conditions':[{'type':'Ready','status':'False'},"
                + "{'type':'PodScheduled','status':'True'}]}}");

    JsonNode result =
        patchPod(original, "{'status':{'conditions':[{'type':'Ready','status':'True'}]}}");

    assertThat(result.at("/status/conditions"))
        .isEqualTo(
            json("[{'type':'Ready','status':'True'},{'type':'PodScheduled','status':'True'}]"));
  }

  @Test
  void anElementWithoutTheMergeKeyIsABadRequest() {
    assertRefused(
            pod("{'containers':[{'name':'a'}]}"),
            "{'spec':{'containers':[{'image':'nginx'}]}}",
            400)
        .hasMessageContaining("spec.containers")
        .hasMessageContaining("merge key: name");
  }

  @Test
  void listsOfListsAreUnprocessable() {
    assertRefused(
        json("{'metadata':{'finalizers':[['a']]}}"), "{'metadata':{'finalizers':[['b']]}}", 422);
  }

  @Test
  void aPatchThatIsNotAnObjectIsABadRequest() {
    assertThatThrownBy(() -> StrategicMergePatch.apply(pod("{}"), json("[]"), POD))
        .isInstanceOfSatisfying(PatchException.class, e -> assertThat(e.code()).isEqualTo(400));
  }

  @Test
  void aValueOfAnotherTypeReplacesTheLiveValueWithoutItsNulls() {
    JsonNode original = pod("{'nodeSelector':'oops'}");

    JsonNode result = patchPod(original, "{'spec':{'nodeSelector':{'zone':'a','x':null}}}");

    assertThat(result.at("/spec/nodeSelector")).isEqualTo(json("{'zone':'a'}"));
  }

  @Test
  void neitherArgumentIsModified() {
    JsonNode original = pod("{'containers':[{'name':'a','image':'a:1'}]}");
    JsonNode patch =
        json(
            "{'spec':{'$setElementOrder/containers':[{'name':'a'}],"
                + "'containers':[{'name':'a','image':'a:2'}]}}");
    JsonNode originalCopy = original.deepCopy();
    JsonNode patchCopy = patch.deepCopy();

    StrategicMergePatch.apply(original, patch, POD);

    assertThat(original).isEqualTo(originalCopy);
    assertThat(patch).isEqualTo(patchCopy);
  }

  private static AbstractThrowableAssert<?, ? extends Throwable> assertRefused(
      JsonNode original, String patch, int code) {
    return assertThatThrownBy(() -> patchPod(original, patch))
        .isInstanceOfSatisfying(PatchException.class, e -> assertThat(e.code()).isEqualTo(code));
  }
}
