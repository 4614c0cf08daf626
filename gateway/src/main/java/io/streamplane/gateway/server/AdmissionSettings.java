package io.streamplane.gateway.server;

import io.streamplane.gateway.admission.DefaultTolerationSeconds;
import io.streamplane.gateway.admission.ServiceAllocation;

/**
 * The settings of a gateway's admission plugins that are flags of kube-apiserver: how long
 * DefaultTolerationSeconds lets pods stay on a not-ready or unreachable node, and the service range
 * cluster IPs come from ({@code --service-cluster-ip-range}), whose first address the {@code
 * kubernetes} Service holds and whose tenth {@code kube-dns}.
 */
public record AdmissionSettings(long defaultTolerationSeconds, String serviceRange) {

  public AdmissionSettings {
    ServiceAllocation.checkRange(serviceRange);
  }

  /** Kubernetes' default toleration, the service range {@link ServiceAllocation#DEFAULT_RANGE}. */
  public static AdmissionSettings defaults() {
    return new AdmissionSettings(
        DefaultTolerationSeconds.KUBERNETES_DEFAULT, ServiceAllocation.DEFAULT_RANGE);
  }

  public AdmissionSettings withServiceRange(String range) {
    return new AdmissionSettings(defaultTolerationSeconds, range);
  }
}
