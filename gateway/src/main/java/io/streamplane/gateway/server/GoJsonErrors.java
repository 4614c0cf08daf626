package io.streamplane.gateway.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.util.HexFormat;

/**
 * A body that is not JSON described as kube-apiserver's decoder describes it: Go's {@code
 * encoding/json} error for the first byte that cannot be where it is, and the start of the body as
 * its {@code summarizeData} prints it (the first 30 bytes, as text when the body starts with
 * {@code '{'}, else in hex).
 */
final class GoJsonErrors {

  private GoJsonErrors() {}

  /** Go's words for what is wrong with {@code raw}, which Jackson refused with {@code e}. */
  static String of(byte[] raw, IOException e) {
    int first = 0;
    while (first < raw.length && Character.isWhitespace(raw[first])) {
      first++;
    }
    if (first == raw.length) {
      return "unexpected end of JSON input";
    }
    char c = (char) (raw[first] & 0xff);
    if ("{[\"-0123456789tfn".indexOf(c) < 0) {
      return "invalid character '" + c + "' looking for beginning of value";
    }
    if (e instanceof JsonProcessingException p
        && p.getOriginalMessage() != null
        && p.getOriginalMessage().startsWith("Unexpected end-of-input")) {
      return "unexpected end of JSON input";
    }
    return e instanceof JsonProcessingException p && p.getOriginalMessage() != null
        ? p.getOriginalMessage()
        : String.valueOf(e.getMessage());
  }

  /** kube-apiserver's summarizeData(body, 30). */
  static String summarize(byte[] raw) {
    if (raw.length == 0) {
      return "<empty>";
    }
    boolean cut = raw.length > 30;
    byte[] shown = cut ? java.util.Arrays.copyOf(raw, 30) : raw;
    String text =
        raw[0] == '{'
            ? new String(shown, java.nio.charset.StandardCharsets.UTF_8)
            : HexFormat.of().formatHex(shown);
    return cut ? text + " ..." : text;
  }
}
