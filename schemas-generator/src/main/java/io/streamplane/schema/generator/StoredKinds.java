package io.streamplane.schema.generator;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.TextFormat;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Resource;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Admissionregistration;
import io.kubernetes.client.proto.V1Apps;
import io.kubernetes.client.proto.V1Batch;
import io.kubernetes.client.proto.V1Certificates;
import io.kubernetes.client.proto.V1Networking;
import io.kubernetes.client.proto.V1Policy;
import io.kubernetes.client.proto.V1Rbac;
import io.kubernetes.client.proto.V1Scheduling;
import io.kubernetes.client.proto.V1Storage;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Kubernetes kinds Streamplane stores, as protobuf descriptors.
 *
 * <p>All come from client-java-proto (Kubernetes 1.32's {@code generated.proto} files) except
 * coordination.k8s.io/v1, node.k8s.io/v1, flowcontrol.apiserver.k8s.io/v1, discovery.k8s.io/v1 and
 * networking.k8s.io/v1beta1's IPAddress and ServiceCIDR, which that artifact does not ship: their
 * messages are read from {@code coordination-v1.textproto}, {@code node-v1.textproto}, {@code
 * flowcontrol-v1.textproto}, {@code discovery-v1.textproto} and {@code
 * networking-v1beta1.textproto}, transcriptions of the same release's {@code generated.proto}; and
 * autoscaling/v2, derived from autoscaling/v2beta2's ({@link #autoscalingV2()}).
 */
public final class StoredKinds {

  private StoredKinds() {}

  /**
   * The stored kinds: first the eighteen of the object union {@code log.avdl} once held, in its
   * order, then the kinds added since.
   */
  public static List<Descriptor> all() {
    return List.of(
        V1.Namespace.getDescriptor(),
        V1.Pod.getDescriptor(),
        V1Apps.ReplicaSet.getDescriptor(),
        V1Apps.Deployment.getDescriptor(),
        V1.Node.getDescriptor(),
        coordinationV1().findMessageTypeByName("Lease"),
        V1.Event.getDescriptor(),
        V1.ConfigMap.getDescriptor(),
        V1.Secret.getDescriptor(),
        V1.ServiceAccount.getDescriptor(),
        V1Rbac.Role.getDescriptor(),
        V1Rbac.ClusterRole.getDescriptor(),
        V1Rbac.RoleBinding.getDescriptor(),
        V1Rbac.ClusterRoleBinding.getDescriptor(),
        V1.ResourceQuota.getDescriptor(),
        V1.LimitRange.getDescriptor(),
        V1Admissionregistration.MutatingWebhookConfiguration.getDescriptor(),
        V1Admissionregistration.ValidatingWebhookConfiguration.getDescriptor(),
        V1.PodTemplate.getDescriptor(),
        V1.ReplicationController.getDescriptor(),
        V1Apps.ControllerRevision.getDescriptor(),
        V1Scheduling.PriorityClass.getDescriptor(),
        V1Networking.IngressClass.getDescriptor(),
        V1Networking.Ingress.getDescriptor(),
        V1Networking.NetworkPolicy.getDescriptor(),
        V1Storage.StorageClass.getDescriptor(),
        V1Storage.CSIDriver.getDescriptor(),
        V1Storage.CSINode.getDescriptor(),
        V1Storage.CSIStorageCapacity.getDescriptor(),
        V1Storage.VolumeAttachment.getDescriptor(),
        V1Certificates.CertificateSigningRequest.getDescriptor(),
        nodeV1().findMessageTypeByName("RuntimeClass"),
        flowcontrolV1().findMessageTypeByName("FlowSchema"),
        flowcontrolV1().findMessageTypeByName("PriorityLevelConfiguration"),
        V1.Service.getDescriptor(),
        V1.Endpoints.getDescriptor(),
        discoveryV1().findMessageTypeByName("EndpointSlice"),
        networkingV1beta1().findMessageTypeByName("IPAddress"),
        networkingV1beta1().findMessageTypeByName("ServiceCIDR"),
        V1Apps.DaemonSet.getDescriptor(),
        V1Batch.Job.getDescriptor(),
        V1Batch.CronJob.getDescriptor(),
        V1Policy.PodDisruptionBudget.getDescriptor(),
        V1.PersistentVolume.getDescriptor(),
        V1.PersistentVolumeClaim.getDescriptor(),
        V1Apps.StatefulSet.getDescriptor(),
        autoscalingV2().findMessageTypeByName("HorizontalPodAutoscaler"),
        V1Admissionregistration.ValidatingAdmissionPolicy.getDescriptor(),
        V1Admissionregistration.ValidatingAdmissionPolicyBinding.getDescriptor());
  }

  /**
   * The descriptor of autoscaling/v2's {@code generated.proto}, which client-java-proto does not
   * ship: in Kubernetes 1.32 it declares the same messages, fields and field numbers as
   * autoscaling/v2beta2's (v2 is v2beta2 made GA; the fields added since, {@code tolerance} of
   * HPAScalingRules and {@code observedGeneration} of conditions, came in later releases), so it is
   * v2beta2's descriptor under v2's package and file name.
   */
  static FileDescriptor autoscalingV2() {
    FileDescriptor v2beta2 = io.kubernetes.client.proto.V2beta2Autoscaling.getDescriptor();
    try {
      String text =
          TextFormat.printer()
              .printToString(v2beta2.toProto())
              .replace("k8s.io.api.autoscaling.v2beta2", "k8s.io.api.autoscaling.v2")
              .replace("k8s.io/api/autoscaling/v2beta2", "k8s.io/api/autoscaling/v2");
      var proto = com.google.protobuf.DescriptorProtos.FileDescriptorProto.newBuilder();
      TextFormat.merge(text, proto);
      return FileDescriptor.buildFrom(
          proto.build(), v2beta2.getDependencies().toArray(FileDescriptor[]::new));
    } catch (TextFormat.ParseException | DescriptorValidationException e) {
      throw new IllegalStateException("autoscaling/v2: " + e.getMessage(), e);
    }
  }

  /** The descriptor of coordination.k8s.io/v1's {@code generated.proto}. */
  static FileDescriptor coordinationV1() {
    return transcribed("coordination-v1.textproto", Meta.getDescriptor());
  }

  /** The descriptor of node.k8s.io/v1's {@code generated.proto}. */
  static FileDescriptor nodeV1() {
    return transcribed(
        "node-v1.textproto", V1.getDescriptor(), Resource.getDescriptor(), Meta.getDescriptor());
  }

  /** The descriptor of flowcontrol.apiserver.k8s.io/v1's {@code generated.proto}. */
  static FileDescriptor flowcontrolV1() {
    return transcribed("flowcontrol-v1.textproto", Meta.getDescriptor());
  }

  /** The descriptor of discovery.k8s.io/v1's {@code generated.proto}. */
  static FileDescriptor discoveryV1() {
    return transcribed("discovery-v1.textproto", V1.getDescriptor(), Meta.getDescriptor());
  }

  /**
   * The IPAddress and ServiceCIDR messages of networking.k8s.io/v1beta1's {@code generated.proto}.
   */
  static FileDescriptor networkingV1beta1() {
    return transcribed("networking-v1beta1.textproto", Meta.getDescriptor());
  }

  /** A {@code generated.proto} transcribed as a FileDescriptorProto in text format. */
  private static FileDescriptor transcribed(String resource, FileDescriptor... dependencies) {
    try (InputStream in = StoredKinds.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the classpath");
      }
      var proto = com.google.protobuf.DescriptorProtos.FileDescriptorProto.newBuilder();
      TextFormat.merge(new InputStreamReader(in, StandardCharsets.UTF_8), proto);
      return FileDescriptor.buildFrom(proto.build(), dependencies);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (DescriptorValidationException e) {
      throw new IllegalStateException(resource + ": " + e.getMessage(), e);
    }
  }
}
