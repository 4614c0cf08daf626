package io.streamplane.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Message;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Runtime;
import io.kubernetes.client.proto.V1;
import io.streamplane.gateway.testing.FuzzRun;
import io.streamplane.gateway.testing.StoredState;
import io.streamplane.gateway.testing.TestPlane;
import io.streamplane.kafka.embedded.EmbeddedKafkaBroker;
import io.streamplane.kafka.embedded.KafkaBrokerExtension;
import io.streamplane.log.UserInfo;
import io.streamplane.topics.Topics;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API surface under fire: thousands of generated bad requests (mutated JSON, YAML and protobuf
 * bodies, wrong kinds and apiVersions, huge and deeply nested bodies, bad query parameters, bad
 * Content-Types, bad paths and methods) against a real gateway and store. Every answer must be a
 * Kubernetes Status with a 4xx code (a request that may still be valid after mutation is sent as a
 * dry run and may succeed), never a 5xx, never without an answer within the client's timeout; and
 * nothing may be stored: the {@code events} topic's end offsets and the objects of the fuzzed
 * namespace are the same after as before.
 *
 * <p>Requests go over a plain socket, so that request lines no HTTP client library would send
 * (broken escapes, odd methods) are sent too. Seeded: the seed is printed, and {@code
 * -Dstreamplane.fuzz.seed=N} replays a run; {@code -Dstreamplane.fuzz.requests=N} sets its size.
 *
 * <p>Its gateway serves every request as the admin; {@link CredentialFuzzIT} fuzzes the credentials
 * of a gateway that authenticates.
 */
@ExtendWith(KafkaBrokerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiFuzzIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int TIMEOUT_MS = 30_000;
  private static final String NS = "fuzz";
  private static final UserInfo SYSTEM = TestPlane.SYSTEM;

  /** What an answer to a case must be. */
  enum Expect {
    /** A 4xx Status: the request is bad. */
    CLIENT_ERROR,
    /** Anything but a 5xx: a dry run whose mutated request may still be valid, or a read. */
    NO_SERVER_ERROR
  }

  record Case(
      String description,
      String method,
      String target,
      Map<String, String> headers,
      byte[] body,
      Expect expect) {}

  record Answer(int code, Map<String, String> headers, byte[] body) {}

  private TestPlane plane;
  private Topics topics;
  private GatewayServer gateway;
  private String bootstrap;

  @BeforeAll
  void start(EmbeddedKafkaBroker broker, @TempDir Path dir) throws Exception {
    plane = TestPlane.start(broker, "fuzz", dir.resolve("store"));
    bootstrap = plane.bootstrap();
    topics = plane.topics();
    gateway = GatewayServer.start(bootstrap, topics, "127.0.0.1", 0, 0, dir.resolve("history"));
    gateway.ensureSystemNamespaces(SYSTEM);
    assertThat(send(post("/api/v1/namespaces", namespaceJson(NS))).code()).isEqualTo(201);
    assertThat(send(post(configMaps(), configMapJson("base"))).code()).isEqualTo(201);
  }

  @AfterAll
  void stop() throws Exception {
    TestPlane.closeAll(gateway, plane);
  }

  @Test
  void everyBadRequestIsAClientErrorStatusNeverAServerErrorOrAHangAndNothingIsStored()
      throws Exception {
    long seed = FuzzRun.seed();
    long eventsBefore = eventsEnd();
    Map<String, TreeSet<String>> objectsBefore = objects();

    List<String> failures =
        FuzzRun.run(
            "ApiFuzzIT",
            seed,
            Integer.getInteger("streamplane.fuzz.requests", 1500),
            this::generate,
            c -> {
              Answer answer = send(c);
              return new FuzzRun.Tried(answer.code(), check(c, answer));
            },
            c -> c.description() + " " + c.method() + " " + abbreviate(c.target(), 200));

    assertThat(failures).as("seed %d: failed cases", seed).isEmpty();
    assertThat(eventsEnd()).as("seed %d: events written", seed).isEqualTo(eventsBefore);
    assertThat(objects()).as("seed %d: objects", seed).isEqualTo(objectsBefore);
  }

  private static String check(Case c, Answer answer) {
    if (answer.code() >= 500) {
      return "answered "
          + answer.code()
          + " "
          + abbreviate(new String(answer.body(), StandardCharsets.UTF_8), 300);
    }
    if (c.expect() == Expect.NO_SERVER_ERROR || c.method().equals("HEAD")) {
      return null;
    }
    if (answer.code() < 400) {
      return "answered " + answer.code() + ", not a client error";
    }
    JsonNode status;
    try {
      status = JSON.readTree(answer.body());
    } catch (IOException e) {
      return "answered "
          + answer.code()
          + " with no JSON: "
          + abbreviate(new String(answer.body(), StandardCharsets.UTF_8), 200);
    }
    if (status == null
        || !"Status".equals(status.path("kind").asText())
        || status.path("code").asInt() != answer.code()) {
      return "answered "
          + answer.code()
          + " with no Status of that code: "
          + abbreviate(String.valueOf(status), 200);
    }
    return null;
  }

  // ---------------------------------------------------------------- generation

  private Case generate(Random r) {
    return switch (r.nextInt(10)) {
      case 0, 1 -> mutatedBody(r, "application/json");
      case 2 -> mutatedBody(r, "application/yaml");
      case 3 -> mutatedBody(r, "application/vnd.kubernetes.protobuf");
      case 4 -> wrongKind(r);
      case 5 -> hugeOrDeep(r);
      case 6, 7 -> badQuery(r);
      case 8 -> badContentType(r);
      default -> badPath(r);
    };
  }

  private Case mutatedBody(Random r, String contentType) {
    byte[] valid =
        switch (contentType) {
          case "application/json" -> configMapJson("m" + r.nextInt(1000));
          case "application/yaml" ->
              ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y"
                      + r.nextInt(1000)
                      + "\ndata:\n  a: b\n")
                  .getBytes(StandardCharsets.UTF_8);
          default -> protobufPod("p" + r.nextInt(1000));
        };
    byte[] body = mutate(r, valid);
    String path = contentType.contains("protobuf") ? pods() : configMaps();
    String method = "POST";
    if (r.nextInt(3) == 0 && !contentType.contains("protobuf")) {
      method = "PUT";
      path = configMaps() + "/base";
    }
    // A mutant may still be a valid object: such requests are dry runs and may succeed.
    return new Case(
        "mutated " + contentType,
        method,
        path + "?dryRun=All",
        Map.of("Content-Type", contentType),
        body,
        Expect.NO_SERVER_ERROR);
  }

  private static byte[] mutate(Random r, byte[] valid) {
    byte[] body = valid.clone();
    int mutations = 1 + r.nextInt(8);
    for (int m = 0; m < mutations && body.length > 0; m++) {
      int at = r.nextInt(body.length);
      switch (r.nextInt(5)) {
        case 0 -> body[at] = (byte) r.nextInt(256);
        case 1 -> body[at] ^= (byte) (1 << r.nextInt(8));
        case 2 -> body = java.util.Arrays.copyOf(body, at);
        case 3 -> {
          byte[] longer = new byte[body.length + 1];
          System.arraycopy(body, 0, longer, 0, at);
          byte[] syntax = "{}[]\":,\\\n -#&*!|>".getBytes(StandardCharsets.UTF_8);
          longer[at] = syntax[r.nextInt(syntax.length)];
          System.arraycopy(body, at, longer, at + 1, body.length - at);
          body = longer;
        }
        default -> {
          byte[] shorter = new byte[body.length - 1];
          System.arraycopy(body, 0, shorter, 0, at);
          System.arraycopy(body, at + 1, shorter, at, body.length - at - 1);
          body = shorter;
        }
      }
    }
    return body;
  }

  private Case wrongKind(Random r) {
    List<String> invalid =
        List.of(
            "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"}}",
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}",
            "{\"apiVersion\":\"v1\",\"kind\":\"Nonsense\",\"metadata\":{\"name\":\"x\"}}",
            "{\"apiVersion\":\"v2\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"}}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"Not_A_Name\"}}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\""
                + "x".repeat(300)
                + "\"}}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\",\"namespace\":\"other\"}}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":\"x\"}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":[]}",
            "[]",
            "[{\"kind\":\"ConfigMap\"}]",
            "42",
            "\"ConfigMap\"",
            "null",
            "true",
            "");
    // Bodies kube-apiserver's decoder may take (a missing kind is defaulted from the URL; an
    // update may leave the name to the URL): answered either way, never with a 5xx.
    List<String> lenient =
        List.of(
            "{}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{}}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":null}",
            "{\"apiVersion\":1,\"kind\":{},\"metadata\":{\"name\":\"x\"}}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"},\"data\":{\"a\":{\"b\":1}}}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\"},\"data\":[1,2]}",
            "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":[]}}}");
    boolean strict = r.nextInt(3) > 0;
    List<String> bodies = strict ? invalid : lenient;
    String body = bodies.get(r.nextInt(bodies.size()));
    String method = r.nextBoolean() ? "POST" : "PUT";
    String path = method.equals("POST") ? configMaps() : configMaps() + "/base";
    return new Case(
        "wrong kind or shape " + body.substring(0, Math.min(body.length(), 80)),
        method,
        path + "?dryRun=All",
        Map.of("Content-Type", "application/json"),
        body.getBytes(StandardCharsets.UTF_8),
        strict ? Expect.CLIENT_ERROR : Expect.NO_SERVER_ERROR);
  }

  private Case hugeOrDeep(Random r) {
    byte[] body;
    String contentType = "application/json";
    String description;
    switch (r.nextInt(4)) {
      case 0 -> {
        description = "huge";
        body =
            ("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"huge\"},\"data\":{\"a\":\""
                    + "x".repeat(3 * 1024 * 1024 + 1 + r.nextInt(1024 * 1024))
                    + "\"}}")
                .getBytes(StandardCharsets.UTF_8);
      }
      case 1 -> {
        description = "deep JSON";
        int depth = 1000 + r.nextInt(50_000);
        body =
            ("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"deep\",\"x\":"
                    + "[".repeat(depth)
                    + "]".repeat(depth)
                    + "}}")
                .getBytes(StandardCharsets.UTF_8);
      }
      case 2 -> {
        description = "deep YAML";
        contentType = "application/yaml";
        int depth = 1000 + r.nextInt(50_000);
        body =
            ("apiVersion: v1\nkind: ConfigMap\nmetadata: "
                    + "[".repeat(depth)
                    + "]".repeat(depth)
                    + "\n")
                .getBytes(StandardCharsets.UTF_8);
      }
      default -> {
        description = "deep object";
        int depth = 200 + r.nextInt(2000);
        body =
            ("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"deep\"},\"data\":"
                    + "{\"a\":".repeat(depth)
                    + "1"
                    + "}".repeat(depth)
                    + "}")
                .getBytes(StandardCharsets.UTF_8);
      }
    }
    return new Case(
        description,
        "POST",
        configMaps(),
        Map.of("Content-Type", contentType),
        body,
        Expect.CLIENT_ERROR);
  }

  private Case badQuery(Random r) {
    List<String> params =
        List.of(
            "limit=abc",
            "limit=99999999999999999999",
            "resourceVersion=abc",
            "resourceVersion=-1",
            "resourceVersion=99999999999999999999",
            "resourceVersionMatch=Bogus",
            "resourceVersionMatch=Exact",
            "fieldSelector=" + garbage(r),
            "labelSelector=" + garbage(r),
            "fieldSelector=metadata.nope%3Dx",
            "labelSelector=a%20in%20(",
            "watch=maybe&timeoutSeconds=1",
            "timeoutSeconds=abc&watch=true",
            "continue=" + garbage(r),
            "allowWatchBookmarks=perhaps&watch=1&timeoutSeconds=1",
            "includeObject=Everything",
            "%zz=1",
            "a=%zz",
            "limit=%",
            "fieldSelector=%E0%A4%A",
            "propagationPolicy=Bogus",
            "gracePeriodSeconds=abc",
            "gracePeriodSeconds=-99999999999999999999",
            "dryRun=Some",
            "fieldValidation=Bogus",
            "fieldManager=" + "m".repeat(200),
            "force=maybe");
    String param = params.get(r.nextInt(params.size()));
    String method = List.of("GET", "GET", "DELETE", "POST", "PATCH").get(r.nextInt(5));
    String path =
        switch (method) {
          case "GET" -> r.nextBoolean() ? configMaps() : configMaps() + "/base";
          case "DELETE" -> r.nextBoolean() ? configMaps() + "/base" : configMaps();
          case "POST" -> configMaps();
          default -> configMaps() + "/base";
        };
    Map<String, String> headers = new LinkedHashMap<>();
    byte[] body = new byte[0];
    if (method.equals("POST")) {
      headers.put("Content-Type", "application/json");
      body = configMapJson("q" + r.nextInt(1000));
    } else if (method.equals("PATCH")) {
      headers.put("Content-Type", "application/merge-patch+json");
      body = "{\"data\":{\"fuzzed\":\"yes\"}}".getBytes(StandardCharsets.UTF_8);
    }
    // Writes are dry runs, since a parameter may be harmless; kube-apiserver ignores some.
    String query = method.equals("GET") ? param : "dryRun=All&" + param;
    return new Case(
        "query " + param, method, path + "?" + query, headers, body, Expect.NO_SERVER_ERROR);
  }

  private Case badContentType(Random r) {
    List<String> types =
        List.of(
            "text/plain",
            "application/xml",
            "garbage",
            "application/json; charset=utf-16",
            ";;;",
            "application/vnd.kubernetes.protobuf",
            "application/json-patch+json",
            "application/apply-patch+yaml",
            "multipart/form-data; boundary=x",
            "*/*");
    String type = types.get(r.nextInt(types.size()));
    String body = r.nextBoolean() ? "{\"kind\":\"ConfigMap\"" : "not a body at all";
    String method = List.of("POST", "PUT", "PATCH").get(r.nextInt(3));
    String path = method.equals("POST") ? configMaps() : configMaps() + "/base";
    return new Case(
        "content type " + type,
        method,
        path,
        Map.of("Content-Type", type),
        body.getBytes(StandardCharsets.UTF_8),
        Expect.CLIENT_ERROR);
  }

  private Case badPath(Random r) {
    List<String> paths =
        List.of(
            "/api/v1/namespaces/" + NS + "/nonsense",
            "/api/v1/namespaces/" + NS + "/configmaps/base/nonsense",
            "/api/v1/namespaces/" + NS + "/configmaps/base/status/extra/more",
            "/apis/nogroup/v1/things",
            "/api/v2/pods",
            "/apis/apps/v9/deployments",
            "/api/v1/namespaces//configmaps",
            "/api/v1/namespaces/" + NS + "/configmaps/%zz",
            "/api/v1/namespaces/%00/configmaps",
            "/api/v1/namespaces/../../etc/passwd",
            "/api/v1/" + garbage(r),
            "/" + "a/".repeat(200 + r.nextInt(800)),
            "/api/v1/namespaces/" + NS + "/pods/" + "n".repeat(1000) + "/exec",
            "/history/api/v1/namespaces/" + NS + "/configmaps/base?since=yesterday",
            "/history/nothing",
            "/openapi/v3/apis/nogroup/v1",
            "/apis/apps/v1/namespaces/" + NS + "/deployments/x/nonsense",
            "/apis/" + garbage(r));
    String path = paths.get(r.nextInt(paths.size()));
    String method =
        List.of("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "FOO")
            .get(r.nextInt(8));
    Map<String, String> headers = new LinkedHashMap<>();
    byte[] body = new byte[0];
    if (!method.equals("GET") && !method.equals("DELETE")) {
      headers.put("Content-Type", "application/json");
      body = configMapJson("pth" + r.nextInt(1000));
    }
    return new Case("path", method, path, headers, body, Expect.CLIENT_ERROR);
  }

  private static String garbage(Random r) {
    String alphabet = "abc=!,()~%20%3D%21xyz in notin .-_/\\'\"&?#{}";
    StringBuilder s = new StringBuilder();
    int n = 1 + r.nextInt(30);
    for (int i = 0; i < n; i++) {
      char ch = alphabet.charAt(r.nextInt(alphabet.length()));
      // Only what may stand in a request line: the escapes and unsafe characters are encoded.
      switch (ch) {
        case ' ' -> s.append("%20");
        case '"' -> s.append("%22");
        case '\\' -> s.append("%5C");
        case '{' -> s.append("%7B");
        case '}' -> s.append("%7D");
        case '#' -> s.append("%23");
        case '&' -> s.append("%26");
        case '?' -> s.append("%3F");
        default -> s.append(ch);
      }
    }
    return s.toString();
  }

  // ---------------------------------------------------------------- the wire

  private Answer send(Case c) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", gateway.port()), 5_000);
      socket.setSoTimeout(TIMEOUT_MS);
      OutputStream out = socket.getOutputStream();
      StringBuilder head = new StringBuilder();
      head.append(c.method()).append(' ').append(c.target()).append(" HTTP/1.1\r\n");
      head.append("Host: 127.0.0.1\r\nConnection: close\r\nAccept: application/json\r\n");
      c.headers().forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
      head.append("Content-Length: ").append(c.body().length).append("\r\n\r\n");
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      try {
        out.write(c.body());
        out.flush();
      } catch (IOException e) {
        // The server may answer (413) and close before reading a huge body: read its answer.
      }
      return read(new BufferedInputStream(socket.getInputStream()), c.method().equals("HEAD"));
    }
  }

  /** Reads one HTTP/1.1 answer; the body is empty for a HEAD request. */
  static Answer read(InputStream in, boolean head) throws IOException {
    String status = line(in);
    if (status == null) {
      throw new IOException("connection closed without an answer");
    }
    int code = Integer.parseInt(status.split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line = line(in); line != null && !line.isEmpty(); line = line(in)) {
      int colon = line.indexOf(':');
      headers.put(
          line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
          line.substring(colon + 1).trim());
    }
    if (head || code == 204 || code == 304) {
      return new Answer(code, headers, new byte[0]);
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (headers.containsKey("content-length")) {
      body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
    } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      for (int size = Integer.parseInt(line(in).split(";")[0].trim(), 16);
          size > 0;
          size = Integer.parseInt(line(in).split(";")[0].trim(), 16)) {
        body.write(in.readNBytes(size));
        line(in);
      }
    } else {
      body.write(in.readAllBytes());
    }
    return new Answer(code, headers, body.toByteArray());
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != -1 && b != '\n') {
      if (b != '\r') {
        line.write(b);
      }
    }
    if (b == -1 && line.size() == 0) {
      return null;
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  // ---------------------------------------------------------------- state

  private long eventsEnd() {
    return StoredState.eventsEnd(bootstrap, topics);
  }

  private Map<String, TreeSet<String>> objects() throws IOException {
    return StoredState.objects(
        List.of(
            configMaps(),
            pods(),
            "/apis/apps/v1/namespaces/" + NS + "/deployments",
            "/api/v1/namespaces"),
        path -> {
          Answer list =
              send(new Case("list", "GET", path, Map.of(), new byte[0], Expect.NO_SERVER_ERROR));
          assertThat(list.code()).isEqualTo(200);
          return list.body();
        });
  }

  // ---------------------------------------------------------------- valid requests

  private static Case post(String path, byte[] body) {
    return new Case(
        "setup",
        "POST",
        path,
        Map.of("Content-Type", "application/json"),
        body,
        Expect.NO_SERVER_ERROR);
  }

  private static String configMaps() {
    return "/api/v1/namespaces/" + NS + "/configmaps";
  }

  private static String pods() {
    return "/api/v1/namespaces/" + NS + "/pods";
  }

  private static byte[] namespaceJson(String name) {
    return ("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\""
            + name
            + "\"}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] configMapJson(String name) {
    return ("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\""
            + name
            + "\",\"labels\":{\"app\":\"fuzz\"}},\"data\":{\"key\":\"value\",\"other\":\"1\"}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** A Pod as client-go's protobuf serializer writes it: magic, then runtime.Unknown. */
  private static byte[] protobufPod(String name) {
    Message pod =
        V1.Pod.newBuilder()
            .setMetadata(Meta.ObjectMeta.newBuilder().setName(name))
            .setSpec(
                V1.PodSpec.newBuilder()
                    .addContainers(V1.Container.newBuilder().setName("c").setImage("nginx")))
            .build();
    Runtime.Unknown unknown =
        Runtime.Unknown.newBuilder()
            .setTypeMeta(Runtime.TypeMeta.newBuilder().setApiVersion("v1").setKind("Pod"))
            .setRaw(pod.toByteString())
            .setContentEncoding("")
            .setContentType("")
            .build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[] {'k', '8', 's', 0});
    out.writeBytes(unknown.toByteArray());
    return out.toByteArray();
  }

  private static String abbreviate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "...";
  }
}
