package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;

/**
 * What admission plugins read of the cluster, as kube-apiserver's plugins read their informers'
 * listers: one object, or the objects of a type in a namespace. Reads are of the gateway's cache as
 * it is (no read barrier); {@link #getFresh} is the live lookup a plugin does on a miss, as
 * kube-apiserver's plugins fall back to a live GET when their lister has not seen an object yet.
 */
public interface ClusterObjects {

  /** The object as the cache holds it, or empty. */
  Optional<ObjectNode> get(String group, String resource, String namespace, String name);

  /**
   * The object as the cache holds it; on a miss, the cache is first brought up to the log's end (an
   * object created just before is then seen).
   */
  Optional<ObjectNode> getFresh(String group, String resource, String namespace, String name);

  /** Waits until the cache has read everything written to the log before this call. */
  void catchUp();

  /** The objects of a type in {@code namespace} (all namespaces when null). */
  List<ObjectNode> list(String group, String resource, String namespace);
}
