package io.streamplane.kinds.validation;

import io.streamplane.log.StatusCause;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The causes of a 422 Invalid in the shape of Kubernetes' {@code field.Error}: the reason ({@code
 * FieldValueRequired}, ...), the message as {@code ErrorList.ToAggregate} words it, the field path.
 */
public final class FieldErrors {

  private FieldErrors() {}

  public static StatusCause required(String field) {
    return new StatusCause("FieldValueRequired", "Required value", field);
  }

  public static StatusCause required(String field, String detail) {
    return new StatusCause("FieldValueRequired", "Required value: " + detail, field);
  }

  /** {@code field.Invalid}: {@code value} is already printed as Go prints it (quoted strings). */
  public static StatusCause invalid(String field, String value, String detail) {
    return new StatusCause("FieldValueInvalid", "Invalid value: " + value + ": " + detail, field);
  }

  public static StatusCause notSupported(String field, String value, List<String> supported) {
    return new StatusCause(
        "FieldValueNotSupported",
        "Unsupported value: "
            + quote(value)
            + ": supported values: "
            + supported.stream().map(FieldErrors::quote).collect(Collectors.joining(", ")),
        field);
  }

  public static StatusCause duplicate(String field, String value) {
    return new StatusCause("FieldValueDuplicate", "Duplicate value: " + quote(value), field);
  }

  /** {@code field.TooMany}. */
  public static StatusCause tooMany(String field, int actual, int max) {
    return new StatusCause(
        "FieldValueTooMany",
        "Too many: " + actual + ": must have at most " + max + (max == 1 ? " item" : " items"),
        field);
  }

  /** {@code field.Forbidden}. */
  public static StatusCause forbidden(String field, String detail) {
    return new StatusCause("FieldValueForbidden", "Forbidden: " + detail, field);
  }

  public static String quote(String s) {
    return "\"" + s + "\"";
  }

  /** Labels as Go prints a map[string]string, as Kubernetes' messages show them. */
  public static String goMap(Map<String, String> map) {
    return new TreeMap<>(map)
        .entrySet().stream()
            .map(e -> quote(e.getKey()) + ":" + quote(e.getValue()))
            .collect(Collectors.joining(", ", "map[string]string{", "}"));
  }

  /** A summary message in Kubernetes' shape: {@code Pod "x" is invalid: [a: ..., b: ...]}. */
  public static String message(String qualifiedKind, String name, List<StatusCause> causes) {
    String details =
        causes.stream()
            .map(c -> c.getField() + ": " + c.getMessage())
            .collect(Collectors.joining(", "));
    return qualifiedKind
        + " \""
        + (name == null ? "" : name)
        + "\" is invalid: "
        + (causes.size() == 1 ? details : "[" + details + "]");
  }
}
