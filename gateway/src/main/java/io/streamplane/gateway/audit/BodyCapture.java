package io.streamplane.gateway.audit;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

/**
 * A copy of the bytes a request body or response body passes, up to a limit: what the audit records
 * as requestObject and responseObject. Past the limit the copy is marked truncated and not
 * recorded, as a partial JSON document is no object.
 */
final class BodyCapture {

  private final ByteArrayOutputStream copy = new ByteArrayOutputStream();
  private final int limit;
  private boolean truncated;

  BodyCapture(int limit) {
    this.limit = limit;
  }

  /** The bytes seen, or null when there were more than the limit. */
  synchronized byte[] bytes() {
    return truncated ? null : copy.toByteArray();
  }

  /** Copies what remains of {@code content}, leaving its position where it was. */
  synchronized void add(ByteBuffer content) {
    if (truncated || content == null || !content.hasRemaining()) {
      return;
    }
    if (copy.size() + content.remaining() > limit) {
      truncated = true;
      copy.reset();
      return;
    }
    byte[] bytes = new byte[content.remaining()];
    content.duplicate().get(bytes);
    copy.write(bytes, 0, bytes.length);
  }
}
