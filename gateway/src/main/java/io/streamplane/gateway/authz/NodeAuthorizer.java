package io.streamplane.gateway.authz;

import io.streamplane.log.UserInfo;
import java.util.List;
import java.util.Optional;

/**
 * The Node authorizer, as kube-apiserver's {@code plugin/pkg/auth/authorizer/node} with
 * AuthorizeNodeWithSelectors (on by default in 1.32): a kubelet ({@code system:node:NAME} in {@code
 * system:nodes}) reads its own Node and only it, reads and writes only its own Lease in {@code
 * kube-node-lease}, gets the pods bound to it, and reads the secrets, config maps and claims, and
 * creates tokens for the service accounts, that those pods reference. Anything else a node asks is
 * checked against the {@code system:node} ClusterRole's rules, as Kubernetes checks it against
 * {@code bootstrappolicy.NodeRules()}. Requests from other users get no opinion.
 *
 * <p>The relationships are the {@link AuthorizationIndex}'s pods-by-node and pods-by-reference
 * indexes rather than Kubernetes' graph: Streamplane has no PersistentVolumes, VolumeAttachments or
 * ResourceClaims, so every path to a node goes through a pod. As in Kubernetes, creating and
 * updating Node objects, pod status updates, pod creation and deletion are allowed here and left to
 * the NodeRestriction admission plugin to limit to the node's own objects. Field selectors are not
 * part of the attributes, so a node cannot list or watch pods ({@code spec.nodeName=NAME}); it gets
 * them one by one.
 */
public final class NodeAuthorizer implements Authorizer, RuleResolver {

  public static final String NODES_GROUP = "system:nodes";
  public static final String NODE_USER_PREFIX = "system:node:";
  static final String NODE_LEASE_NAMESPACE = "kube-node-lease";

  private final AuthorizationIndex index;
  private final List<PolicyRule> nodeRules;

  public NodeAuthorizer(AuthorizationIndex index, List<PolicyRule> nodeRules) {
    this.index = index;
    this.nodeRules = List.copyOf(nodeRules);
  }

  /** The node's name when {@code user} is a node's identity, as {@code NodeIdentity}. */
  static Optional<String> nodeName(UserInfo user) {
    String name = user.getUsername();
    if (!name.startsWith(NODE_USER_PREFIX)) {
      return Optional.empty();
    }
    if (user.getGroups().stream().noneMatch(g -> g.toString().equals(NODES_GROUP))) {
      return Optional.empty();
    }
    return Optional.of(name.substring(NODE_USER_PREFIX.length()));
  }

  @Override
  public Decision authorize(Attributes request) {
    Optional<String> identity = nodeName(request.user());
    if (identity.isEmpty()) {
      return Decision.noOpinion("");
    }
    String node = identity.get();
    if (node.isEmpty()) {
      return Decision.noOpinion("unknown node for user \"" + request.user().getUsername() + "\"");
    }
    if (request.resourceRequest()) {
      String group = request.group();
      String resource = request.resource();
      if (group.isEmpty()) {
        switch (resource) {
          case "secrets", "configmaps" -> {
            return readNamespacedObject(node, request);
          }
          case "persistentvolumeclaims" -> {
            return request.subresource().equals("status")
                ? statusUpdate(node, request)
                : get(node, request);
          }
          case "serviceaccounts" -> {
            return createToken(node, request);
          }
          case "nodes" -> {
            return nodeObject(node, request);
          }
          case "pods" -> {
            return pod(node, request);
          }
          default -> {}
        }
      } else if (group.equals("coordination.k8s.io") && resource.equals("leases")) {
        return lease(node, request);
      }
    }
    return rulesAllow(request) ? Decision.allow("") : Decision.noOpinion("");
  }

  private boolean rulesAllow(Attributes request) {
    for (PolicyRule rule : nodeRules) {
      if (rule.allows(request)) {
        return true;
      }
    }
    return false;
  }

  private Decision statusUpdate(String node, Attributes request) {
    if (!List.of("update", "patch").contains(request.verb())) {
      return Decision.noOpinion("can only get/update/patch this type");
    }
    return related(node, request);
  }

  private Decision get(String node, Attributes request) {
    if (!request.verb().equals("get")) {
      return Decision.noOpinion("can only get individual resources of this type");
    }
    if (!request.subresource().isEmpty()) {
      return Decision.noOpinion("cannot get subresource");
    }
    return related(node, request);
  }

  private Decision readNamespacedObject(String node, Attributes request) {
    if (!List.of("get", "list", "watch").contains(request.verb())) {
      return Decision.noOpinion("can only read resources of this type");
    }
    if (!request.subresource().isEmpty()) {
      return Decision.noOpinion("cannot read subresource");
    }
    if (request.namespace().isEmpty()) {
      return Decision.noOpinion("can only read namespaced object of this type");
    }
    return related(node, request);
  }

  private Decision createToken(String node, Attributes request) {
    if (!request.verb().equals("create") || request.name().isEmpty()) {
      return Decision.noOpinion("can only create tokens for individual service accounts");
    }
    if (!request.subresource().equals("token")) {
      return Decision.noOpinion("can only create token subresource of serviceaccount");
    }
    return related(node, request);
  }

  /** Whether a pod bound to the node leads to the requested object (Kubernetes' hasPathFrom). */
  private Decision related(String node, Attributes request) {
    if (request.name().isEmpty()) {
      return Decision.noOpinion("No Object name found");
    }
    boolean found =
        request.resource().equals("pods")
            ? index.podOnNode(node, request.namespace(), request.name())
            : index.referencedFromNode(
                node, request.resource(), request.namespace(), request.name());
    return found
        ? Decision.allow("")
        : Decision.noOpinion("no relationship found between node '" + node + "' and this object");
  }

  private Decision lease(String node, Attributes request) {
    String verb = request.verb();
    if (!List.of("get", "create", "update", "patch", "delete").contains(verb)) {
      return Decision.noOpinion("can only get, create, update, patch, or delete a node lease");
    }
    if (!request.namespace().equals(NODE_LEASE_NAMESPACE)) {
      return Decision.noOpinion(
          "can only access leases in the \"" + NODE_LEASE_NAMESPACE + "\" system namespace");
    }
    // On create the authorizer does not know the name; NodeRestriction checks it.
    if (!verb.equals("create") && !request.name().equals(node)) {
      return Decision.noOpinion(
          "can only access node lease with the same name as the requesting node");
    }
    return Decision.allow("");
  }

  private Decision nodeObject(String node, Attributes request) {
    String verb = request.verb();
    switch (request.subresource()) {
      case "" -> {
        if (List.of("create", "update", "patch").contains(verb)) {
          return Decision.allow("");
        }
        if (List.of("get", "list", "watch").contains(verb)) {
          if (request.name().equals(node)) {
            return Decision.allow("");
          }
          if (request.name().isEmpty()) {
            return Decision.noOpinion(
                "node '" + node + "' cannot read all nodes, only its own Node object");
          }
          return Decision.noOpinion(
              "node '" + node + "' cannot read '" + request.name() + "', only its own Node object");
        }
      }
      case "status" -> {
        if (List.of("update", "patch").contains(verb)) {
          return Decision.allow("");
        }
      }
      default -> {}
    }
    return Decision.noOpinion("");
  }

  private Decision pod(String node, Attributes request) {
    String verb = request.verb();
    switch (request.subresource()) {
      case "" -> {
        switch (verb) {
          case "get" -> {
            return get(node, request);
          }
          case "list", "watch" -> {
            if (!request.name().isEmpty()) {
              return related(node, request);
            }
            return Decision.noOpinion("can only list/watch pods with spec.nodeName field selector");
          }
          case "create", "delete" -> {
            return Decision.allow("");
          }
          default -> {}
        }
      }
      case "status" -> {
        if (List.of("update", "patch").contains(verb)) {
          return Decision.allow("");
        }
      }
      case "eviction" -> {
        if (verb.equals("create")) {
          return Decision.allow("");
        }
      }
      default -> {}
    }
    return Decision.noOpinion("");
  }

  /** Nodes' permissions depend on their objects: the list is never complete, as in Kubernetes. */
  @Override
  public Rules rulesFor(UserInfo user, String namespace) {
    if (nodeName(user).isPresent()) {
      return new Rules(
          List.of(),
          List.of(),
          true,
          List.of("node authorizer does not support user rule resolution"));
    }
    return Rules.none();
  }
}
