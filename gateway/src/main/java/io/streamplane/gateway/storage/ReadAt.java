package io.streamplane.gateway.storage;

import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.FieldError;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.cache.ListVersion;
import java.util.ArrayList;
import java.util.List;

/**
 * Which state a get or a list reads, from the request's {@code resourceVersion} and {@code
 * resourceVersionMatch}, validated as kube-apiserver validates ListOptions.
 *
 * <ul>
 *   <li>{@link Latest}: no version, or a version with {@code NotOlderThan} (or no match): the
 *       latest state, which is not older than any version a client can name;
 *   <li>{@link Any}: {@code "0"} without {@code Exact}: the cache as it is;
 *   <li>{@link Exact}: {@code Exact} at a list's version: the state as it was there, from the
 *       history index;
 *   <li>{@link ExactObject}: {@code Exact} at an object's version, on a get: that object as it was
 *       after the command with that version (kube-apiserver has no {@code Exact} on a get; this is
 *       Streamplane's).
 * </ul>
 */
public sealed interface ReadAt {

  String EXACT = "Exact";
  String NOT_OLDER_THAN = "NotOlderThan";

  record Latest() implements ReadAt {}

  record Any() implements ReadAt {}

  record Exact(ListVersion version) implements ReadAt {}

  record ExactObject(long resourceVersion) implements ReadAt {}

  public static ReadAt latest() {
    return new Latest();
  }

  /** A get's: {@code Exact} may name a list's or the object's version. */
  static ReadAt ofGet(String resourceVersion, String match) {
    return parse("GetOptions", resourceVersion, match, null, true);
  }

  /** A list's: {@code Exact} must name a list's version. */
  static ReadAt ofList(String resourceVersion, String match, String continueToken) {
    return parse("ListOptions", resourceVersion, match, continueToken, false);
  }

  private static ReadAt parse(
      String optionsKind, String version, String match, String continueToken, boolean get) {
    version = version == null ? "" : version;
    match = match == null ? "" : match;
    List<FieldError> errors = new ArrayList<>();
    if (!match.isEmpty()) {
      if (version.isEmpty()) {
        errors.add(
            FieldError.forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden unless resourceVersion is provided"));
      }
      if (continueToken != null && !continueToken.isEmpty()) {
        errors.add(
            FieldError.forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden when continue is provided"));
      }
      if (!match.equals(EXACT) && !match.equals(NOT_OLDER_THAN)) {
        errors.add(
            FieldError.notSupported(
                "resourceVersionMatch", match, List.of(EXACT, NOT_OLDER_THAN, "")));
      }
      if (match.equals(EXACT) && version.equals("0")) {
        errors.add(
            FieldError.forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""));
      }
    }
    if (!errors.isEmpty()) {
      throw new ApiException(Statuses.invalid("meta.k8s.io", optionsKind, "", errors));
    }
    if (!match.equals(EXACT)) {
      return version.equals("0") ? new Any() : new Latest();
    }
    var list = ListVersion.parse(version);
    if (list.isPresent()) {
      return new Exact(list.get());
    }
    if (!version.matches("[0-9]{1,18}")) {
      throw new ApiException(
          Statuses.badRequest("invalid resourceVersion " + quote(version) + ": not a version"));
    }
    if (!get) {
      throw new ApiException(
          Statuses.badRequest(
              "resourceVersion "
                  + quote(version)
                  + " is an object's version, a position in one partition of the log; a list at"
                  + " an exact version needs a list's resourceVersion (L...)"));
    }
    return new ExactObject(Long.parseLong(version));
  }

  private static String quote(String s) {
    return "\"" + s + "\"";
  }
}
