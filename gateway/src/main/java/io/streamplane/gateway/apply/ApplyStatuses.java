package io.streamplane.gateway.apply;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.FieldError;
import io.streamplane.gateway.api.Statuses;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Statuses of server-side apply and of the options every write takes, worded as kube-apiserver
 * words them: the 409 of an apply that conflicts (kubectl prints its message and then its advice),
 * and the 422 of bad {@code fieldManager} and {@code force} parameters.
 */
public final class ApplyStatuses {

  /** kube-apiserver's FieldManagerMaxLength. */
  public static final int FIELD_MANAGER_MAX_LENGTH = 128;

  private ApplyStatuses() {}

  /**
   * 409 Conflict: {@code Apply failed with 1 conflict: conflict with "a": .spec.replicas}, or for
   * several, grouped by manager: {@code Apply failed with 2 conflicts: conflicts with "a":\n-
   * .spec.replicas\n- ...}; one cause of type FieldManagerConflict per field, and no name or kind
   * in the details, as errors.NewApplyConflict answers.
   */
  public static ObjectNode conflict(List<FieldManager.Conflict> conflicts) {
    ObjectNode details = JsonNodeFactory.instance.objectNode();
    ArrayNode causes = details.putArray("causes");
    for (FieldManager.Conflict c : conflicts) {
      causes
          .addObject()
          .put("reason", "FieldManagerConflict")
          .put("message", "conflict with " + printManager(c.manager()))
          .put("field", FieldSet.pathString(c.path()));
    }
    String message;
    if (conflicts.size() == 1) {
      FieldManager.Conflict c = conflicts.get(0);
      message =
          "Apply failed with 1 conflict: conflict with "
              + printManager(c.manager())
              + ": "
              + FieldSet.pathString(c.path());
    } else {
      Map<String, List<String>> byManager = new LinkedHashMap<>();
      for (FieldManager.Conflict c : conflicts) {
        byManager
            .computeIfAbsent(printManager(c.manager()), m -> new ArrayList<>())
            .add(FieldSet.pathString(c.path()));
      }
      List<String> lines = new ArrayList<>();
      byManager.forEach(
          (manager, paths) -> {
            lines.add("conflicts with " + manager + ":");
            paths.forEach(p -> lines.add("- " + p));
          });
      message = "Apply failed with " + conflicts.size() + " conflicts: " + String.join("\n", lines);
    }
    return Statuses.failure(409, "Conflict", message, details);
  }

  /** kube-apiserver's printManager: the name, its subresource, and for an updater its version. */
  static String printManager(ManagedFieldsEntry manager) {
    String printed = quote(manager.manager());
    if (!manager.subresource().isEmpty()) {
      printed += " with subresource " + quote(manager.subresource());
    }
    if (!manager.applied()) {
      printed += " using " + manager.apiVersion();
    }
    return printed;
  }

  /** Go's {@code %q} for the printable names managers have. */
  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /**
   * The errors of a write's options (ValidateFieldManager, and for a patch ValidatePatchOptions):
   * {@code fieldManager} at most 128 bytes of printable characters, required for an apply; {@code
   * force} only for an apply. {@code kind} is CreateOptions, UpdateOptions or PatchOptions; the
   * answer is a 422 {@code PatchOptions.meta.k8s.io "" is invalid: ...}, or null when valid.
   */
  public static ObjectNode invalidOptions(
      String kind, String fieldManager, boolean forceGiven, boolean apply) {
    List<FieldError> errors = new ArrayList<>();
    String manager = fieldManager == null ? "" : fieldManager;
    if (kind.equals("PatchOptions")) {
      if (!apply && forceGiven) {
        errors.add(FieldError.forbidden("force", "may not be specified for non-apply patch"));
      }
      if (apply && manager.isEmpty()) {
        errors.add(FieldError.required("fieldManager", "is required for apply patch"));
      }
    }
    if (manager.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
        > FIELD_MANAGER_MAX_LENGTH) {
      errors.add(FieldError.tooLong("fieldManager", FIELD_MANAGER_MAX_LENGTH));
    }
    int position = 0;
    for (int i = 0; i < manager.length(); ) {
      int c = manager.codePointAt(i);
      if (!printable(c)) {
        errors.add(
            FieldError.invalid(
                "fieldManager",
                manager,
                String.format("invalid character U+%04X (at position %d)", c, position)));
      }
      position +=
          new String(Character.toChars(c)).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
      i += Character.charCount(c);
    }
    return errors.isEmpty() ? null : Statuses.invalid("meta.k8s.io", kind, "", errors);
  }

  /** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
  private static boolean printable(int c) {
    if (c == ' ') {
      return true;
    }
    return switch (Character.getType(c)) {
      case Character.UPPERCASE_LETTER,
          Character.LOWERCASE_LETTER,
          Character.TITLECASE_LETTER,
          Character.MODIFIER_LETTER,
          Character.OTHER_LETTER,
          Character.NON_SPACING_MARK,
          Character.ENCLOSING_MARK,
          Character.COMBINING_SPACING_MARK,
          Character.DECIMAL_DIGIT_NUMBER,
          Character.LETTER_NUMBER,
          Character.OTHER_NUMBER,
          Character.CONNECTOR_PUNCTUATION,
          Character.DASH_PUNCTUATION,
          Character.START_PUNCTUATION,
          Character.END_PUNCTUATION,
          Character.INITIAL_QUOTE_PUNCTUATION,
          Character.FINAL_QUOTE_PUNCTUATION,
          Character.OTHER_PUNCTUATION,
          Character.MATH_SYMBOL,
          Character.CURRENCY_SYMBOL,
          Character.MODIFIER_SYMBOL,
          Character.OTHER_SYMBOL ->
          true;
      default -> false;
    };
  }
}
