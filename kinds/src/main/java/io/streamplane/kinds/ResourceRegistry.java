package io.streamplane.kinds;

import io.streamplane.api.CSIDriver;
import io.streamplane.api.CSINode;
import io.streamplane.api.CSIStorageCapacity;
import io.streamplane.api.CertificateSigningRequest;
import io.streamplane.api.ClusterRole;
import io.streamplane.api.ClusterRoleBinding;
import io.streamplane.api.ConfigMap;
import io.streamplane.api.ControllerRevision;
import io.streamplane.api.CronJob;
import io.streamplane.api.DaemonSet;
import io.streamplane.api.Deployment;
import io.streamplane.api.EndpointSlice;
import io.streamplane.api.Endpoints;
import io.streamplane.api.Event;
import io.streamplane.api.FlowSchema;
import io.streamplane.api.HorizontalPodAutoscaler;
import io.streamplane.api.IPAddress;
import io.streamplane.api.Ingress;
import io.streamplane.api.IngressClass;
import io.streamplane.api.Job;
import io.streamplane.api.Lease;
import io.streamplane.api.LimitRange;
import io.streamplane.api.MutatingWebhookConfiguration;
import io.streamplane.api.Namespace;
import io.streamplane.api.NetworkPolicy;
import io.streamplane.api.Node;
import io.streamplane.api.PersistentVolume;
import io.streamplane.api.PersistentVolumeClaim;
import io.streamplane.api.Pod;
import io.streamplane.api.PodDisruptionBudget;
import io.streamplane.api.PodTemplate;
import io.streamplane.api.PriorityClass;
import io.streamplane.api.PriorityLevelConfiguration;
import io.streamplane.api.ReplicaSet;
import io.streamplane.api.ReplicationController;
import io.streamplane.api.ResourceQuota;
import io.streamplane.api.Role;
import io.streamplane.api.RoleBinding;
import io.streamplane.api.RuntimeClass;
import io.streamplane.api.Secret;
import io.streamplane.api.Service;
import io.streamplane.api.ServiceAccount;
import io.streamplane.api.ServiceCIDR;
import io.streamplane.api.StatefulSet;
import io.streamplane.api.StorageClass;
import io.streamplane.api.ValidatingAdmissionPolicy;
import io.streamplane.api.ValidatingAdmissionPolicyBinding;
import io.streamplane.api.ValidatingWebhookConfiguration;
import io.streamplane.api.VolumeAttachment;
import io.streamplane.kinds.admissionregistration.ValidatingAdmissionPolicyBindingStrategy;
import io.streamplane.kinds.admissionregistration.ValidatingAdmissionPolicyStrategy;
import io.streamplane.kinds.apiextensions.CustomObjectStrategy;
import io.streamplane.kinds.apiextensions.CustomResourceDefinitionStrategy;
import io.streamplane.kinds.apps.ControllerRevisionStrategy;
import io.streamplane.kinds.apps.DaemonSetStrategy;
import io.streamplane.kinds.apps.DeploymentStrategy;
import io.streamplane.kinds.apps.ReplicaSetStrategy;
import io.streamplane.kinds.apps.StatefulSetStrategy;
import io.streamplane.kinds.autoscaling.HorizontalPodAutoscalerStrategy;
import io.streamplane.kinds.autoscaling.HorizontalPodAutoscalerV1Conversion;
import io.streamplane.kinds.batch.CronJobStrategy;
import io.streamplane.kinds.batch.JobStrategy;
import io.streamplane.kinds.certificates.CertificateSigningRequestStrategy;
import io.streamplane.kinds.coordination.LeaseStrategy;
import io.streamplane.kinds.core.ConfigMapStrategy;
import io.streamplane.kinds.core.EndpointsStrategy;
import io.streamplane.kinds.core.EventStrategy;
import io.streamplane.kinds.core.LimitRangeStrategy;
import io.streamplane.kinds.core.NamespaceStrategy;
import io.streamplane.kinds.core.NodeStrategy;
import io.streamplane.kinds.core.PersistentVolumeClaimStrategy;
import io.streamplane.kinds.core.PersistentVolumeStrategy;
import io.streamplane.kinds.core.PodStrategy;
import io.streamplane.kinds.core.PodTemplateStrategy;
import io.streamplane.kinds.core.ReplicationControllerStrategy;
import io.streamplane.kinds.core.ResourceQuotaStrategy;
import io.streamplane.kinds.core.SecretStrategy;
import io.streamplane.kinds.core.ServiceAccountStrategy;
import io.streamplane.kinds.core.ServiceStrategy;
import io.streamplane.kinds.discovery.EndpointSliceStrategy;
import io.streamplane.kinds.events.EventConversion;
import io.streamplane.kinds.flowcontrol.FlowSchemaStrategy;
import io.streamplane.kinds.flowcontrol.PriorityLevelConfigurationStrategy;
import io.streamplane.kinds.networking.IPAddressStrategy;
import io.streamplane.kinds.networking.IngressClassStrategy;
import io.streamplane.kinds.networking.IngressStrategy;
import io.streamplane.kinds.networking.NetworkPolicyStrategy;
import io.streamplane.kinds.networking.ServiceCIDRStrategy;
import io.streamplane.kinds.node.RuntimeClassStrategy;
import io.streamplane.kinds.policy.PodDisruptionBudgetStrategy;
import io.streamplane.kinds.rbac.RoleBindingStrategy;
import io.streamplane.kinds.rbac.RoleStrategy;
import io.streamplane.kinds.scheduling.PriorityClassStrategy;
import io.streamplane.kinds.storage.CSIDriverStrategy;
import io.streamplane.kinds.storage.CSINodeStrategy;
import io.streamplane.kinds.storage.CSIStorageCapacityStrategy;
import io.streamplane.kinds.storage.StorageClassStrategy;
import io.streamplane.kinds.storage.VolumeAttachmentStrategy;
import io.streamplane.log.CustomObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import org.apache.avro.specific.SpecificRecord;

/**
 * The table of kinds: every resource Streamplane serves, with the names, short names, categories,
 * verbs and subresources kube-apiserver 1.32 advertises for them (so that kubectl's RESTMapper and
 * {@code kubectl get all} resolve exactly as against a real cluster), and each kind's {@link
 * KindStrategy}. The gateway, the store, the tools and the controllers all read this one table;
 * adding a kind is a row here and a strategy class.
 *
 * <p>Contract: immutable; lookups are exact (case-sensitive, as the API server matches URL
 * segments). Order is discovery order: groups in kube-apiserver's priority order, resources
 * alphabetical within a group-version, a group's preferred version (v1) first. Every kind is served
 * in one version: v1, but for networking.k8s.io's IPAddress and ServiceCIDR, which kube-apiserver
 * 1.32 serves in v1beta1 only. Limits: no {@code pods/binding}, {@code pods/exec}, {@code
 * namespaces/finalize}.
 */
public final class ResourceRegistry {

  /** The eight verbs of an ordinary stored resource, in the order discovery lists them. */
  public static final List<String> ALL_VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

  private static final List<String> STATUS_VERBS = List.of("get", "patch", "update");

  private static final KindStrategy ROLE = new RoleStrategy();
  private static final KindStrategy ROLE_BINDING = new RoleBindingStrategy();

  private final List<ResourceType> types;

  /**
   * The rows of the custom resources the cluster's CustomResourceDefinitions define, replaced as a
   * whole whenever a definition changes ({@link #serveCustom}); after the built-in rows.
   */
  private volatile List<ResourceType> custom = List.of();

  private volatile List<ResourceType> all;

  public ResourceRegistry(List<ResourceType> types) {
    this.types = List.copyOf(types);
    this.all = this.types;
  }

  /**
   * Serves exactly these custom resource rows from now on, in place of the previous ones; a row
   * naming a built-in resource is ignored (a definition can never shadow one).
   */
  public void serveCustom(List<ResourceType> rows) {
    List<ResourceType> accepted =
        rows.stream()
            .filter(
                r ->
                    types.stream()
                        .noneMatch(
                            t -> t.group().equals(r.group()) && t.plural().equals(r.plural())))
            .toList();
    List<ResourceType> combined = new ArrayList<>(types);
    combined.addAll(accepted);
    synchronized (this) {
      custom = List.copyOf(accepted);
      all = List.copyOf(combined);
    }
  }

  /** The custom resource rows served now. */
  public List<ResourceType> custom() {
    return custom;
  }

  /**
   * The strategy the store applies to a stored object: its kind's row's; for a custom object the
   * built-in row of its kind (a CustomResourceDefinition) or else {@link
   * CustomObjectStrategy#STORED}, since the store holds no definitions.
   */
  public KindStrategy storedStrategy(SpecificRecord object) {
    if (object instanceof CustomObject custom) {
      return types.stream()
          .filter(t -> CustomObject.class.equals(t.avroClass()) && !t.isView())
          .filter(t -> t.groupVersion().equals(custom.getApiVersion()))
          .filter(t -> t.kind().equals(custom.getKind()))
          .map(ResourceType::strategy)
          .findFirst()
          .orElse(CustomObjectStrategy.STORED);
    }
    return byClass(object.getClass()).map(ResourceType::strategy).orElse(KindStrategy.DEFAULT);
  }

  /** The resources Streamplane serves. */
  public static ResourceRegistry kubernetes() {
    List<ResourceType> t = new ArrayList<>();
    // core/v1, alphabetical as in /api/v1.
    t.add(
        (stored("", "ConfigMap", "configmaps", List.of("cm"), true, List.of(), ConfigMap.class))
            .withStrategy(new ConfigMapStrategy()));
    t.add(
        stored("", "Endpoints", "endpoints", List.of("ep"), true, List.of(), Endpoints.class)
            .withStrategy(new EndpointsStrategy()));
    ResourceType events =
        stored("", "Event", "events", List.of("ev"), true, List.of(), Event.class)
            .withStrategy(new EventStrategy());
    t.add(events);
    t.add(
        (stored(
                "",
                "LimitRange",
                "limitranges",
                List.of("limits"),
                true,
                List.of(),
                LimitRange.class))
            .withStrategy(new LimitRangeStrategy()));
    // A namespace cannot be deleted as part of a collection: kube-apiserver omits deletecollection.
    t.add(
        (new ResourceType(
                "",
                "v1",
                "Namespace",
                "namespaces",
                "namespace",
                List.of("ns"),
                false,
                List.of(),
                List.of("create", "delete", "get", "list", "patch", "update", "watch"),
                Namespace.class,
                List.of(status("", "Namespace"))))
            .withStrategy(new NamespaceStrategy()));
    t.add(
        (stored(
                "",
                "Node",
                "nodes",
                List.of("no"),
                false,
                List.of(proxy("NodeProxyOptions"), status("", "Node")),
                Node.class))
            .withStrategy(new NodeStrategy()));
    t.add(
        (new ResourceType(
                "",
                "v1",
                "PersistentVolumeClaim",
                "persistentvolumeclaims",
                "persistentvolumeclaim",
                List.of("pvc"),
                true,
                List.of(),
                ALL_VERBS,
                PersistentVolumeClaim.class,
                List.of(status("", "PersistentVolumeClaim"))))
            .withStrategy(new PersistentVolumeClaimStrategy()));
    t.add(
        (new ResourceType(
                "",
                "v1",
                "PersistentVolume",
                "persistentvolumes",
                "persistentvolume",
                List.of("pv"),
                false,
                List.of(),
                ALL_VERBS,
                PersistentVolume.class,
                List.of(status("", "PersistentVolume"))))
            .withStrategy(new PersistentVolumeStrategy()));
    t.add(
        (new ResourceType(
                "",
                "v1",
                "Pod",
                "pods",
                "pod",
                List.of("po"),
                true,
                List.of("all"),
                ALL_VERBS,
                Pod.class,
                List.of(
                    new ResourceType.Subresource(
                        "ephemeralcontainers", "", "v1", "Pod", STATUS_VERBS),
                    new ResourceType.Subresource(
                        "eviction", "policy", "v1", "Eviction", List.of("create")),
                    new ResourceType.Subresource("log", "", "v1", "Pod", List.of("get")),
                    proxy("PodProxyOptions"),
                    status("", "Pod"))))
            .withStrategy(new PodStrategy()));
    t.add(
        (stored("", "PodTemplate", "podtemplates", List.of(), true, List.of(), PodTemplate.class))
            .withStrategy(new PodTemplateStrategy()));
    t.add(
        (new ResourceType(
                "",
                "v1",
                "ReplicationController",
                "replicationcontrollers",
                "replicationcontroller",
                List.of("rc"),
                true,
                List.of("all"),
                ALL_VERBS,
                ReplicationController.class,
                List.of(scale(), status("", "ReplicationController"))))
            .withStrategy(new ReplicationControllerStrategy()));
    t.add(
        (stored(
                "",
                "ResourceQuota",
                "resourcequotas",
                List.of("quota"),
                true,
                List.of(status("", "ResourceQuota")),
                ResourceQuota.class))
            .withStrategy(new ResourceQuotaStrategy()));
    t.add(
        (stored("", "Secret", "secrets", List.of(), true, List.of(), Secret.class))
            .withStrategy(new SecretStrategy()));
    t.add(
        (stored(
                "",
                "ServiceAccount",
                "serviceaccounts",
                List.of("sa"),
                true,
                List.of(
                    new ResourceType.Subresource(
                        "token", "authentication.k8s.io", "v1", "TokenRequest", List.of("create"))),
                ServiceAccount.class))
            .withStrategy(new ServiceAccountStrategy()));
    t.add(
        (new ResourceType(
                "",
                "v1",
                "Service",
                "services",
                "service",
                List.of("svc"),
                true,
                List.of("all"),
                ALL_VERBS,
                Service.class,
                List.of(proxy("ServiceProxyOptions"), status("", "Service"))))
            .withStrategy(new ServiceStrategy()));
    // apps/v1
    t.add(
        (stored(
                "apps",
                "ControllerRevision",
                "controllerrevisions",
                List.of(),
                true,
                List.of(),
                ControllerRevision.class))
            .withStrategy(new ControllerRevisionStrategy()));
    t.add(
        (new ResourceType(
                "apps",
                "v1",
                "DaemonSet",
                "daemonsets",
                "daemonset",
                List.of("ds"),
                true,
                List.of("all"),
                ALL_VERBS,
                DaemonSet.class,
                List.of(status("apps", "DaemonSet"))))
            .withStrategy(new DaemonSetStrategy()));
    t.add(
        (new ResourceType(
                "apps",
                "v1",
                "StatefulSet",
                "statefulsets",
                "statefulset",
                List.of("sts"),
                true,
                List.of("all"),
                ALL_VERBS,
                StatefulSet.class,
                List.of(scale(), status("apps", "StatefulSet"))))
            .withStrategy(new StatefulSetStrategy()));
    t.add(
        (new ResourceType(
                "apps",
                "v1",
                "Deployment",
                "deployments",
                "deployment",
                List.of("deploy"),
                true,
                List.of("all"),
                ALL_VERBS,
                Deployment.class,
                List.of(scale(), status("apps", "Deployment"))))
            .withStrategy(new DeploymentStrategy()));
    t.add(
        (new ResourceType(
                "apps",
                "v1",
                "ReplicaSet",
                "replicasets",
                "replicaset",
                List.of("rs"),
                true,
                List.of("all"),
                ALL_VERBS,
                ReplicaSet.class,
                List.of(scale(), status("apps", "ReplicaSet"))))
            .withStrategy(new ReplicaSetStrategy()));
    // events.k8s.io/v1: the core Events under the names of the new API, stored once.
    t.add(
        stored("events.k8s.io", "Event", "events", List.of("ev"), true, List.of(), null)
            .withStrategy(new io.streamplane.kinds.events.EventStrategy(events.strategy()))
            .viewOf(events, new EventConversion()));
    // authentication.k8s.io/v1: create-only reviews, never stored; kubectl auth whoami posts one.
    t.add(review("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews", false));
    t.add(review("authentication.k8s.io", "TokenReview", "tokenreviews", false));
    // authorization.k8s.io/v1: create-only reviews, never stored; kubectl auth can-i posts them.
    String authorization = "authorization.k8s.io";
    t.add(review(authorization, "LocalSubjectAccessReview", "localsubjectaccessreviews", true));
    t.add(review(authorization, "SelfSubjectAccessReview", "selfsubjectaccessreviews", false));
    t.add(review(authorization, "SelfSubjectRulesReview", "selfsubjectrulesreviews", false));
    t.add(review(authorization, "SubjectAccessReview", "subjectaccessreviews", false));
    // autoscaling: v2 stored and preferred, v1 its view (targetCPUUtilizationPercentage).
    ResourceType hpa =
        new ResourceType(
                "autoscaling",
                "v2",
                "HorizontalPodAutoscaler",
                "horizontalpodautoscalers",
                "horizontalpodautoscaler",
                List.of("hpa"),
                true,
                List.of("all"),
                ALL_VERBS,
                HorizontalPodAutoscaler.class,
                List.of(status("autoscaling", "v2", "HorizontalPodAutoscaler")))
            .withStrategy(new HorizontalPodAutoscalerStrategy());
    t.add(hpa);
    t.add(
        new ResourceType(
                "autoscaling",
                "v1",
                "HorizontalPodAutoscaler",
                "horizontalpodautoscalers",
                "horizontalpodautoscaler",
                List.of("hpa"),
                true,
                List.of("all"),
                ALL_VERBS,
                null,
                List.of(status("autoscaling", "v1", "HorizontalPodAutoscaler")))
            .withStrategy(hpa.strategy())
            .viewOf(hpa, new HorizontalPodAutoscalerV1Conversion()));
    // batch/v1
    t.add(
        (new ResourceType(
                "batch",
                "v1",
                "CronJob",
                "cronjobs",
                "cronjob",
                List.of("cj"),
                true,
                List.of("all"),
                ALL_VERBS,
                CronJob.class,
                List.of(status("batch", "CronJob"))))
            .withStrategy(new CronJobStrategy()));
    t.add(
        (new ResourceType(
                "batch",
                "v1",
                "Job",
                "jobs",
                "job",
                List.of(),
                true,
                List.of("all"),
                ALL_VERBS,
                Job.class,
                List.of(status("batch", "Job"))))
            .withStrategy(new JobStrategy()));
    // certificates.k8s.io/v1: approval is the subresource kubectl certificate approve|deny updates.
    String certificates = "certificates.k8s.io";
    t.add(
        (stored(
                certificates,
                "CertificateSigningRequest",
                "certificatesigningrequests",
                List.of("csr"),
                false,
                List.of(
                    new ResourceType.Subresource(
                        "approval", certificates, "v1", "CertificateSigningRequest", STATUS_VERBS),
                    status(certificates, "CertificateSigningRequest")),
                CertificateSigningRequest.class))
            .withStrategy(new CertificateSigningRequestStrategy()));
    // networking.k8s.io/v1
    String networking = "networking.k8s.io";
    t.add(
        (stored(
                networking,
                "IngressClass",
                "ingressclasses",
                List.of(),
                false,
                List.of(),
                IngressClass.class))
            .withStrategy(new IngressClassStrategy()));
    t.add(
        (stored(
                networking,
                "Ingress",
                "ingresses",
                List.of("ing"),
                true,
                List.of(status(networking, "Ingress")),
                Ingress.class))
            .withStrategy(new IngressStrategy()));
    t.add(
        (stored(
                networking,
                "NetworkPolicy",
                "networkpolicies",
                List.of("netpol"),
                true,
                List.of(),
                NetworkPolicy.class))
            .withStrategy(new NetworkPolicyStrategy()));
    // networking.k8s.io/v1beta1: kinds served in this version only, after v1, the preferred one.
    t.add(
        new ResourceType(
                networking,
                "v1beta1",
                "IPAddress",
                "ipaddresses",
                "ipaddress",
                List.of(),
                false,
                List.of(),
                ALL_VERBS,
                IPAddress.class,
                List.of())
            .withStrategy(new IPAddressStrategy()));
    t.add(
        new ResourceType(
                networking,
                "v1beta1",
                "ServiceCIDR",
                "servicecidrs",
                "servicecidr",
                List.of(),
                false,
                List.of(),
                ALL_VERBS,
                ServiceCIDR.class,
                List.of(status(networking, "v1beta1", "ServiceCIDR")))
            .withStrategy(new ServiceCIDRStrategy()));
    // policy/v1
    t.add(
        (new ResourceType(
                "policy",
                "v1",
                "PodDisruptionBudget",
                "poddisruptionbudgets",
                "poddisruptionbudget",
                List.of("pdb"),
                true,
                List.of(),
                ALL_VERBS,
                PodDisruptionBudget.class,
                List.of(status("policy", "PodDisruptionBudget"))))
            .withStrategy(new PodDisruptionBudgetStrategy()));
    // rbac.authorization.k8s.io/v1
    String rbac = "rbac.authorization.k8s.io";
    t.add(
        (rbac(rbac, "ClusterRoleBinding", "clusterrolebindings", false, ClusterRoleBinding.class))
            .withStrategy(ROLE_BINDING));
    t.add((rbac(rbac, "ClusterRole", "clusterroles", false, ClusterRole.class)).withStrategy(ROLE));
    t.add(
        (rbac(rbac, "RoleBinding", "rolebindings", true, RoleBinding.class))
            .withStrategy(ROLE_BINDING));
    t.add((rbac(rbac, "Role", "roles", true, Role.class)).withStrategy(ROLE));
    // storage.k8s.io/v1
    String storage = "storage.k8s.io";
    t.add(
        (stored(storage, "CSIDriver", "csidrivers", List.of(), false, List.of(), CSIDriver.class))
            .withStrategy(new CSIDriverStrategy()));
    t.add(
        (stored(storage, "CSINode", "csinodes", List.of(), false, List.of(), CSINode.class))
            .withStrategy(new CSINodeStrategy()));
    t.add(
        (stored(
                storage,
                "CSIStorageCapacity",
                "csistoragecapacities",
                List.of(),
                true,
                List.of(),
                CSIStorageCapacity.class))
            .withStrategy(new CSIStorageCapacityStrategy()));
    t.add(
        (stored(
                storage,
                "StorageClass",
                "storageclasses",
                List.of("sc"),
                false,
                List.of(),
                StorageClass.class))
            .withStrategy(new StorageClassStrategy()));
    t.add(
        (stored(
                storage,
                "VolumeAttachment",
                "volumeattachments",
                List.of(),
                false,
                List.of(status(storage, "VolumeAttachment")),
                VolumeAttachment.class))
            .withStrategy(new VolumeAttachmentStrategy()));
    // admissionregistration.k8s.io/v1, after storage.k8s.io as kube-apiserver lists it
    String admission = "admissionregistration.k8s.io";
    t.add(
        webhooks(
            admission,
            "MutatingWebhookConfiguration",
            "mutatingwebhookconfigurations",
            MutatingWebhookConfiguration.class));
    t.add(
        webhooks(
                admission,
                "ValidatingAdmissionPolicy",
                "validatingadmissionpolicies",
                ValidatingAdmissionPolicy.class,
                List.of(status(admission, "ValidatingAdmissionPolicy")))
            .withStrategy(new ValidatingAdmissionPolicyStrategy()));
    t.add(
        webhooks(
                admission,
                "ValidatingAdmissionPolicyBinding",
                "validatingadmissionpolicybindings",
                ValidatingAdmissionPolicyBinding.class,
                List.of())
            .withStrategy(new ValidatingAdmissionPolicyBindingStrategy()));
    t.add(
        webhooks(
            admission,
            "ValidatingWebhookConfiguration",
            "validatingwebhookconfigurations",
            ValidatingWebhookConfiguration.class));
    // apiextensions.k8s.io/v1: the definitions are stored as custom objects (custom-resources.md).
    t.add(
        new ResourceType(
                "apiextensions.k8s.io",
                "v1",
                "CustomResourceDefinition",
                "customresourcedefinitions",
                "customresourcedefinition",
                List.of("crd", "crds"),
                false,
                List.of("api-extensions"),
                ALL_VERBS,
                CustomObject.class,
                List.of(status("apiextensions.k8s.io", "CustomResourceDefinition")))
            .withStrategy(new CustomResourceDefinitionStrategy()));
    // scheduling.k8s.io/v1
    t.add(
        (stored(
                "scheduling.k8s.io",
                "PriorityClass",
                "priorityclasses",
                List.of("pc"),
                false,
                List.of(),
                PriorityClass.class))
            .withStrategy(new PriorityClassStrategy()));
    // coordination.k8s.io/v1
    t.add(
        (new ResourceType(
                "coordination.k8s.io",
                "v1",
                "Lease",
                "leases",
                "lease",
                List.of(),
                true,
                List.of(),
                ALL_VERBS,
                Lease.class,
                List.of()))
            .withStrategy(new LeaseStrategy()));
    // node.k8s.io/v1
    t.add(
        (stored(
                "node.k8s.io",
                "RuntimeClass",
                "runtimeclasses",
                List.of(),
                false,
                List.of(),
                RuntimeClass.class))
            .withStrategy(new RuntimeClassStrategy()));
    // discovery.k8s.io/v1
    t.add(
        stored(
                "discovery.k8s.io",
                "EndpointSlice",
                "endpointslices",
                List.of(),
                true,
                List.of(),
                EndpointSlice.class)
            .withStrategy(new EndpointSliceStrategy()));
    // flowcontrol.apiserver.k8s.io/v1
    String flowcontrol = "flowcontrol.apiserver.k8s.io";
    t.add(
        (stored(
                flowcontrol,
                "FlowSchema",
                "flowschemas",
                List.of(),
                false,
                List.of(status(flowcontrol, "FlowSchema")),
                FlowSchema.class))
            .withStrategy(new FlowSchemaStrategy()));
    t.add(
        (stored(
                flowcontrol,
                "PriorityLevelConfiguration",
                "prioritylevelconfigurations",
                List.of(),
                false,
                List.of(status(flowcontrol, "PriorityLevelConfiguration")),
                PriorityLevelConfiguration.class))
            .withStrategy(new PriorityLevelConfigurationStrategy()));
    // metrics.k8s.io/v1beta1: what metrics-server serves through the aggregation layer, measured by
    // the gateway and never stored; aggregated groups come last in discovery.
    t.add(measured("NodeMetrics", "nodes", false));
    t.add(measured("PodMetrics", "pods", true));
    return new ResourceRegistry(t);
  }

  private static ResourceType stored(
      String group,
      String kind,
      String plural,
      List<String> shortNames,
      boolean namespaced,
      List<ResourceType.Subresource> subresources,
      Class<? extends SpecificRecord> avroClass) {
    return new ResourceType(
        group,
        "v1",
        kind,
        plural,
        kind.toLowerCase(java.util.Locale.ROOT),
        shortNames,
        namespaced,
        List.of(),
        ALL_VERBS,
        avroClass,
        subresources);
  }

  private static ResourceType rbac(
      String group,
      String kind,
      String plural,
      boolean namespaced,
      Class<? extends SpecificRecord> avroClass) {
    return new ResourceType(
        group,
        "v1",
        kind,
        plural,
        kind.toLowerCase(java.util.Locale.ROOT),
        List.of(),
        namespaced,
        List.of(),
        ALL_VERBS,
        avroClass,
        List.of());
  }

  private static ResourceType webhooks(
      String group, String kind, String plural, Class<? extends SpecificRecord> avroClass) {
    return webhooks(group, kind, plural, avroClass, List.of());
  }

  private static ResourceType webhooks(
      String group,
      String kind,
      String plural,
      Class<? extends SpecificRecord> avroClass,
      List<ResourceType.Subresource> subresources) {
    return new ResourceType(
        group,
        "v1",
        kind,
        plural,
        kind.toLowerCase(java.util.Locale.ROOT),
        List.of(),
        false,
        List.of("api-extensions"),
        ALL_VERBS,
        avroClass,
        subresources);
  }

  private static ResourceType review(String group, String kind, String plural, boolean namespaced) {
    return new ResourceType(
        group,
        "v1",
        kind,
        plural,
        kind.toLowerCase(java.util.Locale.ROOT),
        List.of(),
        namespaced,
        List.of(),
        List.of("create"),
        null,
        List.of());
  }

  private static ResourceType measured(String kind, String plural, boolean namespaced) {
    return new ResourceType(
        "metrics.k8s.io",
        "v1beta1",
        kind,
        plural,
        "",
        List.of(),
        namespaced,
        List.of(),
        List.of("get", "list"),
        null,
        List.of());
  }

  private static ResourceType.Subresource status(String group, String kind) {
    return status(group, "v1", kind);
  }

  private static ResourceType.Subresource status(String group, String version, String kind) {
    return new ResourceType.Subresource("status", group, version, kind, STATUS_VERBS);
  }

  /** {@code proxy}: kube-apiserver answers it with whatever the target answers. */
  private static ResourceType.Subresource proxy(String kind) {
    return new ResourceType.Subresource(
        "proxy", "", "v1", kind, List.of("create", "delete", "get", "patch", "update"));
  }

  private static ResourceType.Subresource scale() {
    return new ResourceType.Subresource("scale", "autoscaling", "v1", "Scale", STATUS_VERBS);
  }

  public List<ResourceType> all() {
    return all;
  }

  /** Group names in discovery order, the core group ("") first. */
  public List<String> groups() {
    LinkedHashSet<String> groups = new LinkedHashSet<>();
    groups.add("");
    all.forEach(t -> groups.add(t.group()));
    return List.copyOf(groups);
  }

  /** Versions served for a group, preferred first. */
  public List<String> versions(String group) {
    LinkedHashSet<String> versions = new LinkedHashSet<>();
    all.stream().filter(t -> t.group().equals(group)).forEach(t -> versions.add(t.version()));
    return List.copyOf(versions);
  }

  public List<ResourceType> inGroupVersion(String group, String version) {
    return all.stream()
        .filter(t -> t.group().equals(group) && t.version().equals(version))
        .toList();
  }

  /** The resource behind a URL: {@code (apps, deployments)}. */
  public Optional<ResourceType> byResource(String group, String plural) {
    return all.stream()
        .filter(t -> t.group().equals(group) && t.plural().equals(plural))
        .findFirst();
  }

  /**
   * The stored resource a URL names, {@code (apps, v1, deployments)}: empty for one not served in
   * that version or never stored (the access reviews).
   */
  public Optional<ResourceType> served(String group, String version, String plural) {
    return all.stream()
        .filter(t -> t.group().equals(group) && t.plural().equals(plural))
        .filter(t -> t.version().equals(version) && t.stored())
        .findFirst();
  }

  /** The stored resource whose objects are of this generated class. */
  public Optional<ResourceType> byClass(Class<?> avroClass) {
    return all.stream().filter(t -> !t.isView() && avroClass.equals(t.avroClass())).findFirst();
  }

  public Optional<ResourceType> byKind(String group, String kind) {
    return all.stream().filter(t -> t.group().equals(group) && t.kind().equals(kind)).findFirst();
  }

  /** The resource of a body's {@code apiVersion} and {@code kind}: ("apps/v1", "Deployment"). */
  public Optional<ResourceType> byApiVersionKind(String apiVersion, String kind) {
    if (apiVersion == null || kind == null) {
      return Optional.empty();
    }
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
    return all.stream()
        .filter(t -> t.group().equals(group) && t.version().equals(version))
        .filter(t -> t.kind().equals(kind))
        .findFirst();
  }

  /** The resource whose list kind this is ("PodList"), for list bodies. */
  public Optional<ResourceType> byListKind(String apiVersion, String listKind) {
    if (listKind == null || !listKind.endsWith("List")) {
      return Optional.empty();
    }
    return byApiVersionKind(apiVersion, listKind.substring(0, listKind.length() - 4));
  }
}
