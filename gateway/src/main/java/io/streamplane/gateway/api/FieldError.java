package io.streamplane.gateway.api;

import java.util.List;
import java.util.stream.Collectors;

/**
 * One validation failure on one field, as Kubernetes' {@code field.Error}: it becomes a {@code
 * causes} entry of an Invalid {@code Status} and a piece of its message.
 *
 * <p>Contract: {@link #message()} and {@link #body()} render exactly as {@code Error()} and {@code
 * ErrorBody()} do ("spec.replicas: Invalid value: -1: must be greater than or equal to 0"). Limits:
 * bad values are rendered for strings, numbers and booleans; other values print as Java's {@code
 * toString}, where Go would print {@code %#v}.
 */
public record FieldError(Type type, String field, Object badValue, String detail) {

  /** The reason names and texts of {@code field.ErrorType}. */
  public enum Type {
    NOT_FOUND("FieldValueNotFound", "Not found"),
    REQUIRED("FieldValueRequired", "Required value"),
    DUPLICATE("FieldValueDuplicate", "Duplicate value"),
    INVALID("FieldValueInvalid", "Invalid value"),
    NOT_SUPPORTED("FieldValueNotSupported", "Unsupported value"),
    FORBIDDEN("FieldValueForbidden", "Forbidden"),
    TOO_LONG("FieldValueTooLong", "Too long"),
    TOO_MANY("FieldValueTooMany", "Too many"),
    INTERNAL("InternalError", "Internal error"),
    TYPE_INVALID("FieldValueTypeInvalid", "Invalid value");

    private final String reason;
    private final String text;

    Type(String reason, String text) {
      this.reason = reason;
      this.text = text;
    }

    public String reason() {
      return reason;
    }

    public String text() {
      return text;
    }
  }

  /** Marks "no value to print", Kubernetes' {@code omitValue}. */
  public static final Object OMIT = new Object();

  public static FieldError required(String field, String detail) {
    return new FieldError(Type.REQUIRED, field, "", detail);
  }

  public static FieldError invalid(String field, Object value, String detail) {
    return new FieldError(Type.INVALID, field, value, detail);
  }

  public static FieldError notSupported(String field, Object value, List<String> valid) {
    String detail =
        valid.isEmpty()
            ? ""
            : "supported values: "
                + valid.stream().map(v -> "\"" + v + "\"").collect(Collectors.joining(", "));
    return new FieldError(Type.NOT_SUPPORTED, field, value, detail);
  }

  public static FieldError forbidden(String field, String detail) {
    return new FieldError(Type.FORBIDDEN, field, "", detail);
  }

  public static FieldError duplicate(String field, Object value) {
    return new FieldError(Type.DUPLICATE, field, value, "");
  }

  public static FieldError notFound(String field, Object value) {
    return new FieldError(Type.NOT_FOUND, field, value, "");
  }

  public static FieldError tooLong(String field, int maxLength) {
    return new FieldError(
        Type.TOO_LONG, field, OMIT, "may not be more than " + maxLength + " bytes");
  }

  /** {@code ErrorBody()}: the message without the field path. */
  public String body() {
    String s;
    switch (type) {
      case REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL -> s = type.text();
      default -> {
        if (badValue == OMIT) {
          s = type.text();
        } else if (badValue instanceof String str) {
          s = type.text() + ": " + goQuote(str);
        } else if (badValue == null) {
          s = type.text() + ": null";
        } else {
          s = type.text() + ": " + badValue;
        }
      }
    }
    if (detail != null && !detail.isEmpty()) {
      s += ": " + detail;
    }
    return s;
  }

  /** {@code Error()}: "field: body". */
  public String message() {
    return field + ": " + body();
  }

  /** Go's {@code %q} for the printable strings names and values are made of. */
  static String goQuote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\t' -> b.append("\\t");
        case '\r' -> b.append("\\r");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\x%02x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
