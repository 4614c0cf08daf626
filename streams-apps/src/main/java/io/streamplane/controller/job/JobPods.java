package io.streamplane.controller.job;

import io.streamplane.api.Container;
import io.streamplane.api.ContainerStatus;
import io.streamplane.api.EnvVar;
import io.streamplane.api.EnvVarSource;
import io.streamplane.api.Job;
import io.streamplane.api.ObjectFieldSelector;
import io.streamplane.api.ObjectMeta;
import io.streamplane.api.Pod;
import io.streamplane.api.PodSpec;
import io.streamplane.api.PodStatus;
import io.streamplane.controller.Owners;
import io.streamplane.controller.replicaset.ReplicaSetReconciler;
import io.streamplane.schema.objects.KubeObjects;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Job's pods as the job controller reads and writes them ({@code pkg/controller/job}'s {@code
 * utils.go} and {@code indexed_job_utils.go}): which are active, finished, ready or terminating;
 * the tracking finalizer; the completion index; and a new pod from the Job's template.
 */
final class JobPods {

  static final String TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking";
  static final String COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index";
  static final String COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX";
  static final String INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count";
  static final String INDEX_IGNORED_FAILURE_COUNT =
      "batch.kubernetes.io/job-index-ignored-failure-count";

  private JobPods() {}

  static String phase(Pod pod) {
    return pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }

  static boolean deleting(Pod pod) {
    return pod.getMetadata().getDeletionTimestamp() != null;
  }

  static boolean succeeded(Pod pod) {
    return "Succeeded".equals(phase(pod));
  }

  /**
   * {@code isPodFailed}: Failed, or — unless the Job replaces only failed pods — being deleted
   * without having succeeded, since a deleted pod may never reach Failed.
   */
  static boolean failed(Pod pod, boolean onlyReplaceFailed) {
    if ("Failed".equals(phase(pod))) {
      return true;
    }
    return !onlyReplaceFailed && deleting(pod) && !succeeded(pod);
  }

  static boolean finished(Pod pod) {
    return "Succeeded".equals(phase(pod)) || "Failed".equals(phase(pod));
  }

  static boolean active(Pod pod) {
    return !finished(pod) && !deleting(pod);
  }

  static boolean terminating(Pod pod) {
    return !finished(pod) && deleting(pod);
  }

  static boolean tracked(Pod pod) {
    List<String> finalizers = pod.getMetadata().getFinalizers();
    return finalizers != null && finalizers.contains(TRACKING_FINALIZER);
  }

  /** The pod's completion index from its annotation, or -1. */
  static int index(Pod pod) {
    int index = annotation(pod, COMPLETION_INDEX);
    return index < 0 ? -1 : index;
  }

  /** The failures of the pod's index before it, counted against backoffLimitPerIndex. */
  static int indexFailureCount(Pod pod) {
    return Math.max(0, annotation(pod, INDEX_FAILURE_COUNT));
  }

  /** The failures of the pod's index before it that the pod failure policy ignored. */
  static int indexIgnoredFailureCount(Pod pod) {
    return Math.max(0, annotation(pod, INDEX_IGNORED_FAILURE_COUNT));
  }

  /** An annotation's value as a non-negative int, or -1 when absent or malformed. */
  private static int annotation(Pod pod, String key) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(key);
    if (value == null) {
      return -1;
    }
    try {
      int parsed = Integer.parseInt(value);
      return parsed < 0 ? -1 : parsed;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * A new pod of a Job with backoffLimitPerIndex carries its index's failures so far, as {@code
   * addIndexFailureCountAnnotation} writes them (the ignored ones only when there are some).
   */
  static void annotateFailures(Pod pod, int counted, int ignored) {
    Map<String, String> annotations = new HashMap<>(pod.getMetadata().getAnnotations());
    annotations.put(INDEX_FAILURE_COUNT, Integer.toString(counted));
    if (ignored > 0) {
      annotations.put(INDEX_IGNORED_FAILURE_COUNT, Integer.toString(ignored));
    }
    pod.getMetadata().setAnnotations(annotations);
  }

  /** When the pod finished: its containers' last finish, else when it was deleted or created. */
  static Instant finishedAt(Pod pod) {
    Instant latest = null;
    PodStatus status = pod.getStatus();
    if (status != null && status.getContainerStatuses() != null) {
      for (ContainerStatus c : status.getContainerStatuses()) {
        if (c.getState() != null && c.getState().getTerminated() != null) {
          Instant at = c.getState().getTerminated().getFinishedAt();
          if (at != null && (latest == null || at.isAfter(latest))) {
            latest = at;
          }
        }
      }
    }
    if (latest != null) {
      return latest;
    }
    ObjectMeta meta = pod.getMetadata();
    if (meta.getDeletionTimestamp() != null) {
      return meta.getDeletionTimestamp();
    }
    return meta.getCreationTimestamp() == null ? Instant.EPOCH : meta.getCreationTimestamp();
  }

  /** The pod without the tracking finalizer, for an update guarded by its resourceVersion. */
  static Pod untracked(Pod pod) {
    Pod copy = KubeObjects.copy(pod);
    List<String> finalizers = new ArrayList<>(copy.getMetadata().getFinalizers());
    finalizers.remove(TRACKING_FINALIZER);
    copy.getMetadata().setFinalizers(finalizers.isEmpty() ? null : finalizers);
    return copy;
  }

  /**
   * A pod of {@code job} named {@code name}: the template's labels, annotations and spec, a
   * controller reference to the Job and the tracking finalizer; for an Indexed Job the completion
   * index as annotation, label and {@code JOB_COMPLETION_INDEX} of every container, and the
   * hostname {@code <job>-<index>} unless the template names one.
   */
  static Pod newPod(Job job, String name, int index) {
    ObjectMeta jobMeta = job.getMetadata();
    var template = job.getSpec().getTemplate();
    ObjectMeta templateMeta =
        template.getMetadata() == null ? new ObjectMeta() : template.getMetadata();
    Map<String, String> labels =
        templateMeta.getLabels() == null
            ? new HashMap<>()
            : new HashMap<>(templateMeta.getLabels());
    Map<String, String> annotations =
        templateMeta.getAnnotations() == null
            ? new HashMap<>()
            : new HashMap<>(templateMeta.getAnnotations());
    PodSpec spec = KubeObjects.MODEL.deepCopy(template.getSpec().getSchema(), template.getSpec());
    if (index >= 0) {
      labels.put(COMPLETION_INDEX, Integer.toString(index));
      annotations.put(COMPLETION_INDEX, Integer.toString(index));
      withIndexEnv(spec.getInitContainers());
      withIndexEnv(spec.getContainers());
      if (spec.getHostname() == null || spec.getHostname().isEmpty()) {
        spec.setHostname(jobMeta.getName() + "-" + index);
      }
    }
    ObjectMeta meta =
        ObjectMeta.newBuilder()
            .setName(name)
            .setGenerateName(
                index >= 0 ? jobMeta.getName() + "-" + index + "-" : jobMeta.getName() + "-")
            .setNamespace(jobMeta.getNamespace())
            .setLabels(labels.isEmpty() ? null : labels)
            .setAnnotations(annotations.isEmpty() ? null : annotations)
            .setFinalizers(List.of(TRACKING_FINALIZER))
            .setOwnerReferences(List.of(Owners.controllerRef("batch/v1", "Job", jobMeta)))
            .build();
    Pod pod =
        Pod.newBuilder()
            .setApiVersion("v1")
            .setKind("Pod")
            .setMetadata(meta)
            .setSpec(spec)
            .setStatus(PodStatus.newBuilder().setPhase("Pending").build())
            .build();
    return ReplicaSetReconciler.withServiceAccount(pod);
  }

  private static void withIndexEnv(List<Container> containers) {
    if (containers == null) {
      return;
    }
    for (Container container : containers) {
      List<EnvVar> env =
          container.getEnv() == null ? new ArrayList<>() : new ArrayList<>(container.getEnv());
      if (env.stream().anyMatch(e -> COMPLETION_INDEX_ENV.equals(e.getName()))) {
        continue;
      }
      env.add(
          EnvVar.newBuilder()
              .setName(COMPLETION_INDEX_ENV)
              .setValueFrom(
                  EnvVarSource.newBuilder()
                      .setFieldRef(
                          ObjectFieldSelector.newBuilder()
                              .setApiVersion("v1")
                              .setFieldPath("metadata.annotations['" + COMPLETION_INDEX + "']")
                              .build())
                      .build())
              .build());
      container.setEnv(env);
    }
  }
}
