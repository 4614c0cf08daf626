package io.streamplane.cli.roles;

import io.streamplane.gateway.audit.AuditPolicy;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The gateway's audit policy file, kube-apiserver's {@code --audit-policy-file}. */
public final class AuditPolicyOption {

  @Option(
      names = "--audit-policy-file",
      paramLabel = "FILE",
      description =
          "The audit policy (audit.k8s.io/v1 Policy, YAML): which requests are written to the"
              + " audit topic, at which level. Default: every request at Metadata, except probes,"
              + " discovery, reads of leases and events, and node heartbeats (see docs/audit.md).")
  public Path file;

  /** The policy of the file, or the default; an {@link IllegalArgumentException} if invalid. */
  public AuditPolicy policy() {
    return file == null ? AuditPolicy.defaultPolicy() : AuditPolicy.load(file);
  }
}
