package io.streamplane.gateway.admission;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * How a plugin with side effects writes an object's status (the ResourceQuota plugin charging a
 * quota): through the status subresource, conditioned on the object's {@code
 * metadata.resourceVersion}, so a concurrent change is a 409 {@link
 * io.streamplane.gateway.api.ApiException} and not a lost update.
 */
public interface StatusWriter {

  void writeStatus(String group, String resource, String namespace, ObjectNode object);
}
