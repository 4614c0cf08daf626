package io.streamplane.controller.endpoints;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.api.Endpoint;
import io.streamplane.api.EndpointSlice;
import io.streamplane.api.Endpoints;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.Service;
import io.streamplane.controller.Intent;
import io.streamplane.log.CommandVerb;
import io.streamplane.schema.convert.KubeJson;
import io.streamplane.schema.objects.KubeObjects;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

class EndpointSliceReconcilerTest {

  private static final KubeJson JSON = new KubeJson();

  private static <T extends SpecificRecord> T avro(String json, Class<T> type) {
    return JSON.toAvro((ObjectNode) KubeJson.parseJson(json.replace('\'', '"')), type).record();
  }

  private static Pod pod(String name, String ip, boolean ready, int httpPort, String extra) {
    return avro(
        "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'"
            + name
            + "','namespace':'default','uid':'u-"
            + name
            + "','labels':{'app':'web'}"
            + extra
            + "},'spec':{'nodeName':'node-0','hostname':'"
            + name
            + "','subdomain':'web','containers':[{'name':'c','image':'nginx',"
            + "'ports':[{'name':'http','containerPort':"
            + httpPort
            + "}]}]},'status':{'phase':'Running','podIP':'"
            + ip
            + "','podIPs':[{'ip':'"
            + ip
            + "'}],'conditions':[{'type':'Ready','status':'"
            + (ready ? "True" : "False")
            + "'}]}}",
        Pod.class);
  }

  private static List<Pod> readyPods(int count) {
    return IntStream.range(0, count)
        .mapToObj(
            i ->
                pod(
                    String.format("p%03d", i),
                    "127.1." + i / 250 + "." + (i % 250 + 1),
                    true,
                    8080,
                    ""))
        .toList();
  }

  private static Service service(String extra) {
    return avro(
        "{'apiVersion':'v1','kind':'Service','metadata':{'name':'web','namespace':'default',"
            + "'uid':'svc-uid','labels':{'tier':'front'}},'spec':{'selector':{'app':'web'},"
            + "'clusterIP':'127.96.0.10','ipFamilies':['IPv4'],'ports':[{'name':'http',"
            + "'port':80,'protocol':'TCP','targetPort':'http'}]"
            + extra
            + "}}",
        Service.class);
  }

  /** The slices the intents leave once the store has applied them, each with a resourceVersion. */
  private static List<EndpointSlice> applied(List<EndpointSlice> before, List<Intent> intents) {
    List<EndpointSlice> after = new ArrayList<>(before);
    for (Intent intent : intents) {
      after.removeIf(s -> s.getMetadata().getName().equals(intent.name()));
      if (intent.verb() != CommandVerb.DELETE) {
        EndpointSlice stored = KubeObjects.copy((EndpointSlice) intent.object());
        ObjectMeta meta = stored.getMetadata();
        meta.setUid("uid-" + intent.name());
        String rv = meta.getResourceVersion();
        meta.setResourceVersion(Long.toString(rv == null ? 1 : Long.parseLong(rv) + 1));
        after.add(stored);
      }
    }
    return after;
  }

  private static List<Intent> of(List<Intent> intents, CommandVerb verb) {
    return intents.stream().filter(i -> i.verb() == verb).toList();
  }

  @Test
  void moreThanAHundredEndpointsAreSplitIntoSlicesOfAHundredOwnedByTheService() {
    List<Intent> intents =
        EndpointSliceReconciler.reconcile(service(""), readyPods(250), List.of());

    assertThat(intents).allMatch(i -> i.verb() == CommandVerb.CREATE);
    List<EndpointSlice> slices = intents.stream().map(i -> (EndpointSlice) i.object()).toList();
    assertThat(slices).extracting(s -> s.getEndpoints().size()).containsExactly(100, 100, 50);
    assertThat(slices).extracting(s -> s.getMetadata().getName()).doesNotHaveDuplicates();
    EndpointSlice first = slices.get(0);
    assertThat(first.getMetadata().getName()).matches("web-[a-z0-9]{5}");
    assertThat(first.getMetadata().getGenerateName()).isEqualTo("web-");
    assertThat(first.getAddressType()).isEqualTo("IPv4");
    assertThat(first.getMetadata().getLabels())
        .isEqualTo(
            Map.of(
                "tier", "front",
                "kubernetes.io/service-name", "web",
                "endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io"));
    var owner = first.getMetadata().getOwnerReferences().get(0);
    assertThat(owner.getKind()).isEqualTo("Service");
    assertThat(owner.getUid()).isEqualTo("svc-uid");
    assertThat(owner.getController()).isTrue();
    assertThat(owner.getBlockOwnerDeletion()).isTrue();
    assertThat(first.getPorts().get(0).getName()).isEqualTo("http");
    assertThat(first.getPorts().get(0).getPort()).isEqualTo(8080);
    assertThat(first.getPorts().get(0).getProtocol()).isEqualTo("TCP");
  }

  @Test
  void podsWhoseNamedTargetPortResolvesDifferentlyGoToDifferentSlices() {
    List<Intent> intents =
        EndpointSliceReconciler.reconcile(
            service(""),
            List.of(
                pod("a", "127.1.0.2", true, 8080, ""),
                pod("b", "127.1.0.3", true, 9090, ""),
                pod("c", "127.1.0.4", true, 8080, "")),
            List.of());

    assertThat(intents)
        .extracting(i -> (EndpointSlice) i.object())
        .extracting(s -> s.getPorts().get(0).getPort() + "=" + s.getEndpoints().size())
        .containsExactlyInAnyOrder("8080=2", "9090=1");
  }

  @Test
  void conditionsAreReadyServingAndTerminatingAsKubernetesComputesThem() {
    List<Intent> intents =
        EndpointSliceReconciler.reconcile(
            service(""),
            List.of(
                pod("ready", "127.1.0.2", true, 8080, ""),
                pod("unready", "127.1.0.3", false, 8080, ""),
                pod(
                    "leaving",
                    "127.1.0.4",
                    true,
                    8080,
                    ",'deletionTimestamp':'2024-05-01T10:00:00Z'")),
            List.of());

    List<Endpoint> endpoints = ((EndpointSlice) intents.get(0).object()).getEndpoints();
    assertThat(endpoints)
        .extracting(
            e ->
                e.getTargetRef().getName()
                    + " ready="
                    + e.getConditions().getReady()
                    + " serving="
                    + e.getConditions().getServing()
                    + " terminating="
                    + e.getConditions().getTerminating())
        .containsExactly(
            "leaving ready=false serving=true terminating=true",
            "ready ready=true serving=true terminating=false",
            "unready ready=false serving=false terminating=false");
    Endpoint ready = endpoints.get(1);
    assertThat(ready.getAddresses()).containsExactly("127.1.0.2");
    assertThat(ready.getNodeName()).isEqualTo("node-0");
    assertThat(ready.getHostname()).isEqualTo("ready");
    assertThat(ready.getTargetRef().getUid()).isEqualTo("u-ready");

    List<Intent> published =
        EndpointSliceReconciler.reconcile(
            service(",'publishNotReadyAddresses':true"),
            List.of(pod("unready", "127.1.0.3", false, 8080, "")),
            List.of());
    assertThat(
            ((EndpointSlice) published.get(0).object())
                .getEndpoints()
                .get(0)
                .getConditions()
                .getReady())
        .isTrue();
  }

  @Test
  void aConvergedServiceWritesNothingAndAChangedPodRewritesOnlyItsSlice() {
    Service service = service("");
    List<Pod> pods = readyPods(250);
    List<EndpointSlice> slices =
        applied(List.of(), EndpointSliceReconciler.reconcile(service, pods, List.of()));

    assertThat(EndpointSliceReconciler.reconcile(service, pods, slices)).isEmpty();

    List<Pod> oneUnready = new ArrayList<>(pods);
    oneUnready.set(7, pod("p007", "127.1.0.8", false, 8080, ""));
    List<Intent> intents = EndpointSliceReconciler.reconcile(service, oneUnready, slices);
    assertThat(intents).singleElement().extracting(Intent::verb).isEqualTo(CommandVerb.UPDATE);
    assertThat(EndpointSliceReconciler.reconcile(service, oneUnready, applied(slices, intents)))
        .isEmpty();
  }

  @Test
  void slicesNoLongerNeededAreDeletedAndTheLastBecomesAnEmptyPlaceholder() {
    Service service = service("");
    List<EndpointSlice> slices =
        applied(List.of(), EndpointSliceReconciler.reconcile(service, readyPods(250), List.of()));

    List<Intent> shrink = EndpointSliceReconciler.reconcile(service, readyPods(50), slices);
    assertThat(of(shrink, CommandVerb.UPDATE)).hasSize(1);
    assertThat(of(shrink, CommandVerb.DELETE)).hasSize(2);
    slices = applied(slices, shrink);
    assertThat(slices).singleElement().extracting(s -> s.getEndpoints().size()).isEqualTo(50);

    List<Intent> empty = EndpointSliceReconciler.reconcile(service, List.of(), slices);
    assertThat(empty).singleElement().extracting(Intent::verb).isEqualTo(CommandVerb.UPDATE);
    slices = applied(slices, empty);
    assertThat(slices.get(0).getEndpoints()).isEmpty();
    assertThat(slices.get(0).getPorts()).isEmpty();
    assertThat(EndpointSliceReconciler.reconcile(service, List.of(), slices)).isEmpty();
  }

  @Test
  void aServiceWithoutASelectorGetsNoSlices() {
    Service service =
        avro(
            "{'apiVersion':'v1','kind':'Service','metadata':{'name':'ext','namespace':'default',"
                + "'uid':'u'},'spec':{'ports':[{'port':80,'protocol':'TCP','targetPort':80}]}}",
            Service.class);

    assertThat(EndpointSliceReconciler.reconcile(service, readyPods(3), List.of())).isEmpty();
  }

  private static Service selectorless() {
    return avro(
        "{'apiVersion':'v1','kind':'Service','metadata':{'name':'ext','namespace':'default',"
            + "'uid':'svc-uid'},'spec':{'clusterIP':'127.96.0.20','ports':[{'name':'https',"
            + "'port':443,'protocol':'TCP','targetPort':6443}]}}",
        Service.class);
  }

  private static Endpoints endpoints(String metadata, String subsets) {
    return avro(
        "{'apiVersion':'v1','kind':'Endpoints','metadata':{'name':'ext','namespace':'default',"
            + "'uid':'ep-uid'"
            + metadata
            + "},'subsets':"
            + subsets
            + "}",
        Endpoints.class);
  }

  /** One subset of {@code count} ready addresses at port 6443. */
  private static Endpoints readyAddresses(int count) {
    StringBuilder addresses = new StringBuilder();
    for (int i = 0; i < count; i++) {
      addresses
          .append(i == 0 ? "" : ",")
          .append("{'ip':'127.2.")
          .append(i / 250)
          .append('.')
          .append(i % 250 + 1)
          .append("'}");
    }
    return endpoints(
        "",
        "[{'addresses':["
            + addresses
            + "],'ports':[{'name':'https','port':6443,'protocol':'TCP'}]}]");
  }

  @Test
  void theEndpointsOfAServiceWithoutASelectorAreMirroredAsTheMirroringControllerWritesThem() {
    Endpoints endpoints =
        endpoints(
            ",'labels':{'team':'a','endpointslice.kubernetes.io/managed-by':'someone'},"
                + "'annotations':{'note':'x','kubectl.kubernetes.io/last-applied-configuration':'{}',"
                + "'endpoints.kubernetes.io/last-change-trigger-time':'2024-05-01T10:00:00Z'}",
            "[{'addresses':[{'ip':'127.2.0.1','hostname':'db-0','nodeName':'node-0',"
                + "'targetRef':{'kind':'Pod','namespace':'default','name':'db-0','uid':'u-db-0'}},"
                + "{'ip':'not-an-ip'},{'ip':'fd00::1'}],"
                + "'notReadyAddresses':[{'ip':'127.2.0.2'}],"
                + "'ports':[{'name':'https','port':6443,'protocol':'TCP'}]}]");

    List<Intent> intents = EndpointSliceReconciler.mirror(selectorless(), endpoints, List.of());

    assertThat(intents).singleElement().extracting(Intent::verb).isEqualTo(CommandVerb.CREATE);
    EndpointSlice slice = (EndpointSlice) intents.get(0).object();
    assertThat(slice.getMetadata().getName()).matches("ext-[a-z0-9]{5}");
    assertThat(slice.getMetadata().getGenerateName()).isEqualTo("ext-");
    assertThat(slice.getAddressType()).isEqualTo("IPv4");
    assertThat(slice.getMetadata().getLabels())
        .isEqualTo(
            Map.of(
                "team", "a",
                "kubernetes.io/service-name", "ext",
                "endpointslice.kubernetes.io/managed-by",
                    "endpointslicemirroring-controller.k8s.io"));
    assertThat(slice.getMetadata().getAnnotations()).isEqualTo(Map.of("note", "x"));
    var owner = slice.getMetadata().getOwnerReferences().get(0);
    assertThat(owner.getApiVersion() + " " + owner.getKind() + " " + owner.getName())
        .isEqualTo("v1 Endpoints ext");
    assertThat(owner.getUid()).isEqualTo("ep-uid");
    assertThat(owner.getController()).isTrue();
    assertThat(slice.getPorts())
        .extracting(p -> p.getName() + " " + p.getPort() + "/" + p.getProtocol())
        .containsExactly("https 6443/TCP");
    assertThat(slice.getEndpoints())
        .extracting(e -> e.getAddresses() + " ready=" + e.getConditions().getReady())
        .containsExactly("[127.2.0.1] ready=true", "[127.2.0.2] ready=false");
    Endpoint ready = slice.getEndpoints().get(0);
    assertThat(ready.getHostname()).isEqualTo("db-0");
    assertThat(ready.getNodeName()).isEqualTo("node-0");
    assertThat(ready.getTargetRef().getUid()).isEqualTo("u-db-0");
    assertThat(ready.getConditions().getServing()).isNull();
  }

  @Test
  void endpointsLabelledSkipMirrorAreNotMirroredAndTheirSlicesAreDeleted() {
    List<EndpointSlice> slices =
        applied(
            List.of(),
            EndpointSliceReconciler.mirror(selectorless(), readyAddresses(3), List.of()));
    Endpoints skipped =
        endpoints(
            ",'labels':{'endpointslice.kubernetes.io/skip-mirror':'true'}",
            "[{'addresses':[{'ip':'127.2.0.1'}],'ports':[{'port':6443}]}]");

    assertThat(EndpointSliceReconciler.mirror(selectorless(), skipped, List.of())).isEmpty();
    assertThat(EndpointSliceReconciler.mirror(selectorless(), skipped, slices))
        .singleElement()
        .extracting(Intent::verb)
        .isEqualTo(CommandVerb.DELETE);
  }

  @Test
  void aServiceWithASelectorIsNotMirroredAndWithoutEndpointsOrServiceTheSlicesAreDeleted() {
    List<EndpointSlice> slices =
        applied(
            List.of(),
            EndpointSliceReconciler.mirror(selectorless(), readyAddresses(3), List.of()));

    assertThat(EndpointSliceReconciler.mirror(service(""), readyAddresses(3), List.of())).isEmpty();
    assertThat(EndpointSliceReconciler.mirror(service(""), readyAddresses(3), slices))
        .extracting(Intent::verb)
        .containsExactly(CommandVerb.DELETE);
    assertThat(EndpointSliceReconciler.mirror(selectorless(), null, slices))
        .extracting(Intent::verb)
        .containsExactly(CommandVerb.DELETE);
    assertThat(EndpointSliceReconciler.mirror(null, readyAddresses(3), slices))
        .extracting(Intent::verb)
        .containsExactly(CommandVerb.DELETE);
  }

  @Test
  void convergedMirroredSlicesAreNotRewrittenAndAChangedAddressRewritesOnlyItsSlice() {
    Service service = selectorless();
    Endpoints endpoints = readyAddresses(250);
    List<EndpointSlice> slices =
        applied(List.of(), EndpointSliceReconciler.mirror(service, endpoints, List.of()));

    assertThat(EndpointSliceReconciler.mirror(service, endpoints, slices)).isEmpty();

    Endpoints oneLess = readyAddresses(249);
    List<Intent> intents = EndpointSliceReconciler.mirror(service, oneLess, slices);
    assertThat(intents).singleElement().extracting(Intent::verb).isEqualTo(CommandVerb.UPDATE);
    assertThat(EndpointSliceReconciler.mirror(service, oneLess, applied(slices, intents)))
        .isEmpty();

    Endpoints labelled = readyAddresses(250);
    labelled.getMetadata().setLabels(Map.of("team", "b"));
    assertThat(EndpointSliceReconciler.mirror(service, labelled, slices))
        .hasSize(3)
        .allMatch(i -> i.verb() == CommandVerb.UPDATE)
        .allMatch(i -> "b".equals(KubeObjects.meta(i.object()).getLabels().get("team")));
  }

  @Test
  void moreThanAHundredAddressesAreMirroredIntoSlicesOfAHundredAndAtMostAThousandOfASubset() {
    List<Intent> intents =
        EndpointSliceReconciler.mirror(selectorless(), readyAddresses(250), List.of());

    assertThat(intents).allMatch(i -> i.verb() == CommandVerb.CREATE);
    assertThat(intents)
        .extracting(i -> ((EndpointSlice) i.object()).getEndpoints().size())
        .containsExactly(100, 100, 50);
    assertThat(intents).extracting(Intent::name).doesNotHaveDuplicates();

    assertThat(EndpointSliceReconciler.mirror(selectorless(), readyAddresses(1200), List.of()))
        .extracting(i -> ((EndpointSlice) i.object()).getEndpoints().size())
        .containsOnly(100)
        .hasSize(10);
  }
}
