package io.streamplane.gateway.request;

import java.util.Map;

/**
 * Boolean query parameters ({@code watch}, {@code allowWatchBookmarks}, {@code follow}, ...) read
 * as kube-apiserver's parameter codec reads them into ListOptions, PodLogOptions and the other
 * options kinds ({@code runtime.Convert_Slice_string_To_bool}): an absent parameter is false; a
 * value of {@code 0} or of {@code false} in any letter case is false; every other value is true —
 * {@code True} as the Python client sends it, {@code 1}, {@code t}, and also the empty value of
 * {@code ?watch}. No value is an error, as in kube-apiserver.
 */
public final class QueryBooleans {

  private QueryBooleans() {}

  public static boolean get(Map<String, String> query, String name) {
    String value = query.get(name);
    if (value == null) {
      return false;
    }
    return !(value.equals("0") || value.equalsIgnoreCase("false"));
  }
}
