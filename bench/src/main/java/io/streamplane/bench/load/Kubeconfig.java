package io.streamplane.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where an API server is and how to authenticate to it, read from a kubeconfig file as kubectl
 * reads it: the context (the current one unless named), its cluster's {@code server}, {@code
 * certificate-authority(-data)} and {@code insecure-skip-tls-verify}, its user's {@code
 * client-certificate(-data)} and {@code client-key(-data)}, {@code token} or {@code tokenFile},
 * {@code username}/{@code password}. Relative file paths are relative to the kubeconfig's folder.
 *
 * <p>Not supported, and refused with a message saying so: {@code exec} credential plugins and
 * {@code auth-provider}s (cloud logins), proxies, and merging several files of {@code $KUBECONFIG}
 * (the first file that exists is used).
 */
public record Kubeconfig(
    Path file,
    String context,
    String server,
    String namespace,
    List<X509Certificate> certificateAuthority,
    boolean insecureSkipTlsVerify,
    List<X509Certificate> clientCertificate,
    PrivateKey clientKey,
    String token,
    String username,
    String password) {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /**
   * The kubeconfig to use when none is named: the first file of {@code $KUBECONFIG} that exists,
   * else {@code ./.streamplane/kubeconfig} (what {@code streamplane up} writes), else {@code
   * ~/.kube/config}.
   */
  public static Optional<Path> defaultFile(Map<String, String> env, Path workDir, Path home) {
    String list = env.get("KUBECONFIG");
    if (list != null && !list.isBlank()) {
      for (String entry : list.split(":")) {
        if (!entry.isBlank() && Files.isRegularFile(Path.of(entry))) {
          return Optional.of(Path.of(entry));
        }
      }
    }
    for (Path candidate :
        List.of(workDir.resolve(".streamplane/kubeconfig"), home.resolve(".kube/config"))) {
      if (Files.isRegularFile(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** Reads {@code file}, using {@code context} or, when null, the file's current context. */
  public static Kubeconfig load(Path file, String context) {
    try {
      return parse(
          Files.readString(file, StandardCharsets.UTF_8),
          file.toAbsolutePath().getParent(),
          context,
          file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read kubeconfig " + file, e);
    }
  }

  /**
   * Parses kubeconfig YAML; {@code baseDir} resolves relative paths, {@code file} is for messages.
   */
  public static Kubeconfig parse(String yaml, Path baseDir, String context, Path file) {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (IOException e) {
      throw new IllegalArgumentException(file + " is not valid YAML: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(file + " is not a kubeconfig");
    }
    String contextName = context != null ? context : root.path("current-context").asText("");
    if (contextName.isEmpty()) {
      throw new IllegalArgumentException(file + " has no current-context; name one with --context");
    }
    JsonNode ctx = named(root, "contexts", contextName, file).path("context");
    String clusterName = ctx.path("cluster").asText("");
    JsonNode cluster = named(root, "clusters", clusterName, file).path("cluster");
    String userName = ctx.path("user").asText("");
    JsonNode user =
        userName.isEmpty() ? YAML.createObjectNode() : named(root, "users", userName, file);
    user = user.path("user");
    if (user.has("exec") || user.has("auth-provider")) {
      throw new IllegalArgumentException(
          "user '"
              + userName
              + "' in "
              + file
              + " logs in through "
              + (user.has("exec") ? "an exec credential plugin" : "an auth-provider")
              + ", which this tool does not run; use a kubeconfig with a token or a client"
              + " certificate");
    }
    String server = cluster.path("server").asText("");
    if (server.isEmpty()) {
      throw new IllegalArgumentException(
          "cluster '" + clusterName + "' in " + file + " has no server");
    }
    byte[] ca = bytes(cluster, "certificate-authority", baseDir);
    byte[] cert = bytes(user, "client-certificate", baseDir);
    byte[] key = bytes(user, "client-key", baseDir);
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException(
          "user '" + userName + "' in " + file + " has a client certificate or key, not both");
    }
    String token = text(user, "token");
    String tokenFile = text(user, "tokenFile");
    if (token == null && tokenFile != null) {
      try {
        token = Files.readString(baseDir.resolve(tokenFile)).trim();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read tokenFile " + tokenFile, e);
      }
    }
    return new Kubeconfig(
        file,
        contextName,
        server.endsWith("/") ? server.substring(0, server.length() - 1) : server,
        ctx.path("namespace").asText("default"),
        ca == null ? List.of() : Pem.certificates(ca),
        cluster.path("insecure-skip-tls-verify").asBoolean(false),
        cert == null ? List.of() : Pem.certificates(cert),
        key == null ? null : Pem.privateKey(key),
        token,
        text(user, "username"),
        text(user, "password"));
  }

  /** A one-line description for reports: server, context and how the client authenticates. */
  public String describe() {
    String auth;
    if (clientKey != null) {
      auth = "client certificate " + clientCertificate.get(0).getSubjectX500Principal().getName();
    } else if (token != null) {
      auth = "bearer token";
    } else if (username != null) {
      auth = "basic auth as " + username;
    } else {
      auth = "no credentials";
    }
    return server + " (context " + context + ", " + auth + ")";
  }

  /** Never prints the key, token or password. */
  @Override
  public String toString() {
    return "Kubeconfig[" + describe() + "]";
  }

  private static JsonNode named(JsonNode root, String list, String name, Path file) {
    for (JsonNode entry : root.path(list)) {
      if (name.equals(entry.path("name").asText())) {
        return entry;
      }
    }
    throw new IllegalArgumentException(
        file + " has no entry '" + name + "' in " + list + (name.isEmpty() ? " (empty name)" : ""));
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() || value.asText().isEmpty() ? null : value.asText();
  }

  /** {@code <field>-data} (base64) wins over {@code <field>} (a file path), as in client-go. */
  private static byte[] bytes(JsonNode node, String field, Path baseDir) {
    String data = text(node, field + "-data");
    if (data != null) {
      return Base64.getMimeDecoder().decode(data);
    }
    String path = text(node, field);
    if (path == null) {
      return null;
    }
    Path resolved = baseDir == null ? Path.of(path) : baseDir.resolve(path);
    try {
      return Files.readAllBytes(resolved);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + field + " " + resolved, e);
    }
  }
}
