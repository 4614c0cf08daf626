package io.streamplane.kinds.validation;

import static io.streamplane.kinds.validation.FieldErrors.invalid;
import static io.streamplane.kinds.validation.FieldErrors.quote;
import static io.streamplane.kinds.validation.FieldErrors.required;

import io.streamplane.api.ObjectMeta;
import io.streamplane.log.StatusCause;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Kubernetes' name validations ({@code ValidateObjectMeta} with a kind's name function): DNS-1123
 * labels and subdomains, the path-segment names of RBAC and the addresses that name IPAddresses.
 */
public final class Names {

  private Names() {}

  static final String DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  static final Pattern LABEL = Pattern.compile(DNS1123_LABEL);
  private static final Pattern SUBDOMAIN =
      Pattern.compile(DNS1123_LABEL + "(\\." + DNS1123_LABEL + ")*");
  private static final Pattern DNS1035 = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final String DNS1035_MESSAGE =
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an"
          + " alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or"
          + " 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
  static final String LABEL_MESSAGE =
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and"
          + " must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc',"
          + " regex used for validation is '"
          + DNS1123_LABEL
          + "')";
  private static final String SUBDOMAIN_MESSAGE =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or"
          + " '.', and must start and end with an alphanumeric character (e.g. 'example.com',"
          + " regex used for validation is '"
          + DNS1123_LABEL
          + "(\\."
          + DNS1123_LABEL
          + ")*')";

  /** A kind's name function. */
  public enum Rule {
    /** {@code NameIsDNSSubdomain}: most kinds. */
    DNS1123_SUBDOMAIN,
    /** {@code NameIsDNSLabel}: namespaces. */
    DNS1123_LABEL,
    /**
     * {@code NameIsDNS1035Label}: services, whose names become DNS labels that start alphabetic.
     */
    DNS1035_LABEL,
    /**
     * {@code ValidatePathSegmentName}: RBAC, so that the default roles' names such as {@code
     * system:controller:job-controller} are valid.
     */
    PATH_SEGMENT,
    /**
     * {@code ValidateIPAddressName}: IPAddresses, named by their address as {@code netip.ParseAddr}
     * reads it and in its canonical form ({@code 10.0.0.1}, {@code 2001:db8::1}).
     */
    IP_ADDRESS
  }

  /** The metadata's name under {@code rule}, and its namespace when the kind is namespaced. */
  public static List<StatusCause> validateMeta(ObjectMeta meta, boolean namespaced, Rule rule) {
    List<StatusCause> causes = new ArrayList<>();
    String name = meta.getName();
    if (name == null || name.isBlank()) {
      causes.add(required("metadata.name", "name or generateName is required"));
    } else {
      switch (rule) {
        case DNS1123_LABEL -> {
          if (name.length() > 63 || !LABEL.matcher(name).matches()) {
            causes.add(invalid("metadata.name", quote(name), LABEL_MESSAGE));
          }
        }
        case DNS1123_SUBDOMAIN -> {
          if (name.length() > 253 || !SUBDOMAIN.matcher(name).matches()) {
            causes.add(invalid("metadata.name", quote(name), SUBDOMAIN_MESSAGE));
          }
        }
        case DNS1035_LABEL -> {
          if (name.length() > 63 || !DNS1035.matcher(name).matches()) {
            causes.add(invalid("metadata.name", quote(name), DNS1035_MESSAGE));
          }
        }
        case PATH_SEGMENT -> pathSegment(name, causes);
        case IP_ADDRESS -> {
          try {
            if (!IpAddresses.parseAddr(name).toString().equals(name)) {
              causes.add(
                  invalid("metadata.name", quote(name), "must be a canonical format IP address"));
            }
          } catch (IpAddresses.ParseException e) {
            causes.add(invalid("metadata.name", quote(name), e.getMessage()));
          }
        }
      }
    }
    String namespace = meta.getNamespace();
    if (namespaced && (namespace == null || namespace.isBlank())) {
      causes.add(required("metadata.namespace"));
    } else if (namespaced && !LABEL.matcher(namespace).matches()) {
      causes.add(invalid("metadata.namespace", quote(namespace), LABEL_MESSAGE));
    }
    return causes;
  }

  /** Whether {@code value} is a DNS-1123 label, with Kubernetes' message when it is not. */
  public static StatusCause label(String field, String value) {
    return value.length() > 63 || !LABEL.matcher(value).matches()
        ? invalid(field, quote(value), LABEL_MESSAGE)
        : null;
  }

  /**
   * {@code IsQualifiedName}: an optional DNS-1123 subdomain prefix and "/", then a name of at most
   * 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric (a label key's syntax).
   */
  public static List<StatusCause> qualifiedName(String field, String value) {
    return qualifiedNameErrors(value).stream().map(p -> invalid(field, quote(value), p)).toList();
  }

  /** {@code IsQualifiedName}'s problems with {@code value}, none when it is one. */
  public static List<String> qualifiedNameErrors(String value) {
    List<String> problems = new ArrayList<>();
    String[] parts = value.split("/", -1);
    String name = parts[parts.length - 1];
    if (parts.length > 2) {
      problems.add(
          "a qualified name "
              + QUALIFIED_NAME_MESSAGE
              + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return problems;
    }
    if (parts.length == 2) {
      if (parts[0].isEmpty()) {
        problems.add("prefix part must be non-empty");
      } else if (parts[0].length() > 253 || !SUBDOMAIN.matcher(parts[0]).matches()) {
        problems.add("prefix part " + SUBDOMAIN_MESSAGE);
      }
    }
    if (name.isEmpty()) {
      problems.add("name part must be non-empty");
    } else if (name.length() > 63) {
      problems.add("name part must be no more than 63 characters");
    }
    if (!QUALIFIED_NAME.matcher(name).matches()) {
      problems.add("name part " + QUALIFIED_NAME_MESSAGE);
    }
    return problems;
  }

  /**
   * {@code IsValidLabelValue}: empty, or at most 63 alphanumerics, '-', '_' or '.', starting and
   * ending alphanumeric.
   */
  public static List<StatusCause> labelValue(String field, String value) {
    return labelValueErrors(value).stream().map(p -> invalid(field, quote(value), p)).toList();
  }

  /** {@code IsValidLabelValue}'s problems with {@code value}, none when it is one. */
  public static List<String> labelValueErrors(String value) {
    List<String> problems = new ArrayList<>();
    if (value.length() > 63) {
      problems.add("must be no more than 63 characters");
    }
    if (!value.isEmpty() && !QUALIFIED_NAME.matcher(value).matches()) {
      problems.add(LABEL_VALUE_MESSAGE);
    }
    return problems;
  }

  /** {@code IsDNS1123Label}'s problems with {@code value}, none when it is one. */
  public static List<String> dns1123LabelErrors(String value) {
    List<String> problems = new ArrayList<>();
    if (value.length() > 63) {
      problems.add("must be no more than 63 characters");
    }
    if (!LABEL.matcher(value).matches()) {
      problems.add(SUBDOMAIN.matcher(value).matches() ? "must not contain dots" : LABEL_MESSAGE);
    }
    return problems;
  }

  /** {@code IsDNS1123Subdomain}'s problems with {@code value}, none when it is one. */
  public static List<String> dns1123SubdomainErrors(String value) {
    List<String> problems = new ArrayList<>();
    if (value.length() > 253) {
      problems.add("must be no more than 253 characters");
    }
    if (!SUBDOMAIN.matcher(value).matches()) {
      problems.add(SUBDOMAIN_MESSAGE);
    }
    return problems;
  }

  /** {@code IsDNS1035Label}'s problems with {@code value}, none when it is one. */
  public static List<String> dns1035LabelErrors(String value) {
    List<String> problems = new ArrayList<>();
    if (value.length() > 63) {
      problems.add("must be no more than 63 characters");
    }
    if (!DNS1035.matcher(value).matches()) {
      problems.add(DNS1035_MESSAGE);
    }
    return problems;
  }

  /** {@code IsDNS1123Subdomain}, with Kubernetes' messages when {@code value} is not one. */
  public static List<StatusCause> subdomain(String field, String value) {
    List<StatusCause> causes = new ArrayList<>();
    if (value.length() > 253) {
      causes.add(invalid(field, quote(value), "must be no more than 253 characters"));
    }
    if (!SUBDOMAIN.matcher(value).matches()) {
      causes.add(invalid(field, quote(value), SUBDOMAIN_MESSAGE));
    }
    return causes;
  }

  private static final String LABEL_VALUE_MESSAGE =
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or"
          + " '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or"
          + " 'my_value',  or '12345', regex used for validation is"
          + " '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

  private static final Pattern QUALIFIED_NAME =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");

  private static final String QUALIFIED_NAME_MESSAGE =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
          + " alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for"
          + " validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

  private static void pathSegment(String name, List<StatusCause> causes) {
    causes.addAll(pathSegmentName("metadata.name", name));
  }

  /** {@code IsValidPathSegmentName}, with Kubernetes' messages when {@code value} is not one. */
  public static List<StatusCause> pathSegmentName(String field, String value) {
    if (value.equals(".") || value.equals("..")) {
      return List.of(invalid(field, quote(value), "may not be '" + value + "'"));
    }
    List<StatusCause> causes = new ArrayList<>();
    for (String forbidden : List.of("/", "%")) {
      if (value.contains(forbidden)) {
        causes.add(invalid(field, quote(value), "may not contain '" + forbidden + "'"));
      }
    }
    return causes;
  }
}
