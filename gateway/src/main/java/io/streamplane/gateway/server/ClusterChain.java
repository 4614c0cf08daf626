package io.streamplane.gateway.server;

import io.streamplane.gateway.admission.Admission;
import io.streamplane.gateway.admission.CachedObjects;
import io.streamplane.gateway.admission.CertificateSubjectRestriction;
import io.streamplane.gateway.admission.ClusterObjects;
import io.streamplane.gateway.admission.DefaultStorageClass;
import io.streamplane.gateway.admission.DefaultTolerationSeconds;
import io.streamplane.gateway.admission.LimitRanger;
import io.streamplane.gateway.admission.MutatingAdmission;
import io.streamplane.gateway.admission.NamespaceLifecycle;
import io.streamplane.gateway.admission.NodeRestriction;
import io.streamplane.gateway.admission.PersistentVolumeClaimResize;
import io.streamplane.gateway.admission.PodSecurity;
import io.streamplane.gateway.admission.PriorityClassAdmission;
import io.streamplane.gateway.admission.ResourceQuotaAdmission;
import io.streamplane.gateway.admission.ServiceAccountAdmission;
import io.streamplane.gateway.admission.ServiceAllocation;
import io.streamplane.gateway.admission.StorageObjectInUseProtection;
import io.streamplane.gateway.admission.SystemWrites;
import io.streamplane.gateway.admission.ValidatingAdmission;
import io.streamplane.gateway.admission.ValidatingAdmissionPolicies;
import io.streamplane.gateway.admission.Webhooks;
import io.streamplane.gateway.authn.Authentication;
import io.streamplane.gateway.authn.Authenticator;
import io.streamplane.gateway.authn.BearerToken;
import io.streamplane.gateway.authn.ServiceAccountAuthenticator;
import io.streamplane.gateway.authn.TokenFile;
import io.streamplane.gateway.authn.X509Authenticator;
import io.streamplane.gateway.authz.Authorization;
import io.streamplane.gateway.authz.AuthorizationIndex;
import io.streamplane.gateway.authz.Authorizer;
import io.streamplane.gateway.authz.BootstrapPolicy;
import io.streamplane.gateway.authz.NodeAuthorizer;
import io.streamplane.gateway.authz.PrivilegedGroups;
import io.streamplane.gateway.authz.Rbac;
import io.streamplane.gateway.cache.WatchCache;
import io.streamplane.kinds.ResourceRegistry;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The request chain of a cluster's gateway, in one place: which authenticators, authorizers and
 * admission plugins run, and in which order. Adding a plugin is one line here.
 */
final class ClusterChain {

  private ClusterChain() {}

  static RequestChain of(
      WatchCache cache,
      SystemWrites systemWrites,
      GatewaySecurity security,
      Clock clock,
      AdmissionSettings settings) {
    return new RequestChain(
        new Authentication(authenticators(cache, security, clock), security.anonymous()),
        new Authorization(authorizers(cache)),
        admission(cache, systemWrites, settings));
  }

  /**
   * Tried in order; the first that names the user wins: client certificates, then bearer tokens
   * (the static token file, then ServiceAccount tokens), as kube-apiserver orders them.
   */
  static List<Authenticator> authenticators(
      WatchCache cache, GatewaySecurity security, Clock clock) {
    List<Authenticator> authenticators = new ArrayList<>();
    if (security.clientCaFile() != null) {
      authenticators.add(new X509Authenticator(security.clientCas(), clock));
    }
    List<BearerToken.TokenAuthenticator> tokens = new ArrayList<>();
    if (security.tokenAuthFile() != null) {
      tokens.add(TokenFile.read(security.tokenAuthFile()));
    }
    List<PublicKey> serviceAccountKeys = security.serviceAccountKeys();
    if (!serviceAccountKeys.isEmpty()) {
      tokens.add(
          new ServiceAccountAuthenticator(
              serviceAccountKeys,
              security.serviceAccountIssuer(),
              List.of(security.serviceAccountIssuer()),
              cache::get,
              clock));
    }
    if (!tokens.isEmpty()) {
      authenticators.add(new BearerToken(tokens));
    }
    return authenticators;
  }

  /**
   * Asked in order; the first that allows or denies decides: as kube-apiserver with {@code
   * --authorization-mode=Node,RBAC}, after the {@code system:masters} shortcut.
   */
  static List<Authorizer> authorizers(WatchCache cache) {
    AuthorizationIndex index = new AuthorizationIndex();
    index.follow(cache);
    return authorizers(index);
  }

  static List<Authorizer> authorizers(AuthorizationIndex index) {
    return List.of(
        new PrivilegedGroups(),
        new NodeAuthorizer(index, BootstrapPolicy.kubernetes().clusterRoleRules("system:node")),
        new Rbac(index));
  }

  /**
   * Mutating plugins in order, then validating plugins in order: kube-apiserver's default plugins
   * in its order (see docs/admission.md). {@code systemWrites} is how ResourceQuota charges a quota
   * and the service allocator claims addresses; {@code settings} how long DefaultTolerationSeconds
   * lets pods stay on a not-ready or unreachable node, and the service range.
   */
  static Admission admission(
      WatchCache cache, SystemWrites systemWrites, AdmissionSettings settings) {
    ClusterObjects objects = new CachedObjects(cache, Duration.ofSeconds(30));
    LimitRanger limitRanger = new LimitRanger(objects);
    ServiceAccountAdmission serviceAccount = new ServiceAccountAdmission(objects);
    PriorityClassAdmission priority = new PriorityClassAdmission(objects);
    List<MutatingAdmission> mutating =
        List.of(
            new NamespaceLifecycle(objects),
            new ServiceAllocation(objects, systemWrites, settings.serviceRange()),
            limitRanger,
            serviceAccount,
            priority,
            new DefaultTolerationSeconds(settings.defaultTolerationSeconds()),
            new DefaultStorageClass(objects),
            new StorageObjectInUseProtection(),
            Webhooks.mutating(objects));
    List<ValidatingAdmission> validating =
        List.of(
            limitRanger,
            serviceAccount,
            new NodeRestriction(objects),
            new PodSecurity(objects),
            priority,
            new PersistentVolumeClaimResize(objects),
            new CertificateSubjectRestriction(),
            new ValidatingAdmissionPolicies(objects, ResourceRegistry.kubernetes()),
            Webhooks.validating(objects),
            new ResourceQuotaAdmission(objects, systemWrites, Clock.systemUTC()));
    return new Admission(mutating, validating);
  }
}
