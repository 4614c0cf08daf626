package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The writes a plugin with side effects makes as the API server itself, through a registry that
 * admits nothing: the ResourceQuota plugin charging a quota (a status write conditioned on the
 * object's {@code metadata.resourceVersion}, so a concurrent change is a 409 {@link
 * io.streamplane.gateway.api.ApiException} and not a lost update), and the service allocator
 * claiming and releasing cluster IPs as IPAddress objects (a create that is a 409 when another
 * holds the name).
 */
public interface SystemWrites {

  void writeStatus(String group, String resource, String namespace, ObjectNode object);

  /** Creates {@code object}; an ApiException (409 AlreadyExists among others) when it cannot. */
  default ObjectNode create(String group, String resource, String namespace, ObjectNode object) {
    throw new UnsupportedOperationException("this writer only writes status");
  }

  /** Deletes an object; one already gone is no error. */
  default void delete(String group, String resource, String namespace, String name) {
    throw new UnsupportedOperationException("this writer only writes status");
  }
}
