package io.streamplane.gateway.audit;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

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

  private synchronized void add(byte[] b, int off, int len) {
    if (truncated || len <= 0) {
      return;
    }
    if (copy.size() + len > limit) {
      truncated = true;
      copy.reset();
      return;
    }
    copy.write(b, off, len);
  }

  InputStream reading(InputStream in) {
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          add(new byte[] {(byte) b}, 0, 1);
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        add(b, off, n);
        return n;
      }
    };
  }

  OutputStream writing(OutputStream out) {
    return new FilterOutputStream(out) {
      @Override
      public void write(int b) throws IOException {
        add(new byte[] {(byte) b}, 0, 1);
        out.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        add(b, off, len);
        out.write(b, off, len);
      }
    };
  }
}
