package io.streamplane.kinds.apiextensions;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * apimachinery's kube-aware version order ({@code version.CompareKubeAwareVersionStrings}): GA
 * versions before betas before alphas, each by major then minor number, highest first ({@code v10 >
 * v2 > v1 > v11beta2 > v10beta3 > v3beta1 > v12alpha1}); names of another form come after them all,
 * in lexicographic order.
 */
public final class KubeVersions {

  private static final Pattern KUBE = Pattern.compile("^v(\\d+)(?:(alpha|beta)(\\d+))?$");

  private KubeVersions() {}

  /** Positive when {@code a} has the higher priority, negative when {@code b} has, else 0. */
  public static int compare(String a, String b) {
    Matcher ma = KUBE.matcher(a);
    Matcher mb = KUBE.matcher(b);
    if (!ma.matches() || !mb.matches()) {
      if (ma.matches()) {
        return 1;
      }
      if (mb.matches()) {
        return -1;
      }
      return b.compareTo(a);
    }
    int stage = Integer.compare(stage(ma.group(2)), stage(mb.group(2)));
    if (stage != 0) {
      return stage;
    }
    int major = Long.compare(Long.parseLong(ma.group(1)), Long.parseLong(mb.group(1)));
    if (major != 0 || ma.group(3) == null) {
      return major;
    }
    return Long.compare(Long.parseLong(ma.group(3)), Long.parseLong(mb.group(3)));
  }

  private static int stage(String qualifier) {
    return qualifier == null ? 2 : qualifier.equals("beta") ? 1 : 0;
  }
}
