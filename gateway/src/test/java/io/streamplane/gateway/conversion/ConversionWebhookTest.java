package io.streamplane.gateway.conversion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.admission.WebhookServer;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.webhook.WebhookClient;
import io.streamplane.kinds.ResourceType;
import io.streamplane.kinds.apiextensions.CustomResources;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ConversionWebhook} against a real HTTPS server started here: v1 names the field {@code
 * cronSpec}, v2 {@code schedule}; the server renames it in the direction asked.
 */
class ConversionWebhookTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path dir;
  private static WebhookServer server;

  @BeforeAll
  static void start() throws Exception {
    server = new WebhookServer(dir);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @BeforeEach
  void renaming() {
    server.answer(ConversionWebhookTest::convert);
  }

  /** The webhook: renames the field, and tries to change the name and a label. */
  private static String convert(JsonNode review) {
    JsonNode request = review.path("request");
    String desired = request.path("desiredAPIVersion").asText();
    ObjectNode object = (ObjectNode) request.path("objects").get(0).deepCopy();
    ObjectNode spec = (ObjectNode) object.path("spec");
    if (desired.endsWith("/v2")) {
      spec.set("schedule", spec.remove("cronSpec"));
    } else {
      spec.set("cronSpec", spec.remove("schedule"));
    }
    object.put("apiVersion", desired);
    ((ObjectNode) object.path("metadata")).put("name", "renamed").with("labels").put("by", "hook");
    ObjectNode answer = JSON.createObjectNode();
    answer.put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "ConversionReview");
    ObjectNode response = answer.putObject("response");
    response.put("uid", request.path("uid").asText());
    response.putArray("convertedObjects").add(object);
    response.putObject("result").put("status", "Success");
    return answer.toString();
  }

  private static ObjectNode crd() throws Exception {
    return (ObjectNode)
        JSON.readTree(
            """
            {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
             "metadata": {"name": "crontabs.stable.example.com"},
             "spec": {"group": "stable.example.com", "scope": "Namespaced",
               "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
               "conversion": {"strategy": "Webhook", "webhook": {
                 "conversionReviewVersions": ["v1"],
                 "clientConfig": {"url": "%s", "caBundle": "%s"}}},
               "versions": [
                 {"name": "v1", "served": true, "storage": true, "deprecated": true,
                  "schema": {"openAPIV3Schema": {"type": "object"}}},
                 {"name": "v2", "served": true, "storage": false,
                  "schema": {"openAPIV3Schema": {"type": "object"}}}]},
             "status": {"conditions": [{"type": "Established", "status": "True"}]}}
            """
                .formatted(server.url(), server.caBundle()));
  }

  private static ObjectNode v1Object() throws Exception {
    return (ObjectNode)
        JSON.readTree(
            """
            {"apiVersion": "stable.example.com/v1", "kind": "CronTab",
             "metadata": {"name": "my-cron", "namespace": "default", "uid": "u-1"},
             "spec": {"cronSpec": "* * * * */5"}}
            """);
  }

  @Test
  void theOtherVersionIsServedThroughTheWebhookWhichMayChangeOnlyLabelsAndAnnotations()
      throws Exception {
    ObjectNode crd = crd();
    List<ResourceType> rows =
        CustomResources.rows(crd, new ConversionWebhook(new WebhookClient(), crd));
    assertThat(rows)
        .extracting(ResourceType::version)
        .as("preferred first")
        .containsExactly("v2", "v1");
    ResourceType v2 = rows.get(0);
    ObjectNode stored = v1Object();

    ObjectNode shown = v2.fromStorage(stored);
    assertThat(shown.path("apiVersion").asText()).isEqualTo("stable.example.com/v2");
    assertThat(shown.path("spec").path("schedule").asText()).isEqualTo("* * * * */5");
    assertThat(shown.path("metadata").path("name").asText()).isEqualTo("my-cron");
    assertThat(shown.path("metadata").path("labels").path("by").asText()).isEqualTo("hook");
    assertThat(stored).as("the stored object is not changed").isEqualTo(v1Object());

    ObjectNode back = v2.toStorage(shown);
    assertThat(back.path("apiVersion").asText()).isEqualTo("stable.example.com/v1");
    assertThat(back.path("spec").path("cronSpec").asText()).isEqualTo("* * * * */5");
    JsonNode review = server.lastReview();
    assertThat(review.path("kind").asText()).isEqualTo("ConversionReview");
    assertThat(review.path("request").path("desiredAPIVersion").asText())
        .isEqualTo("stable.example.com/v1");

    assertThat(rows.get(1).strategy().deprecationWarning())
        .contains("stable.example.com/v1 CronTab is deprecated; use stable.example.com/v2 CronTab");
    assertThat(v2.strategy().deprecationWarning()).isEmpty();
  }

  @Test
  void aFailedConversionIsAnInternalErrorNamingTheWebhookAndTheKind() throws Exception {
    server.answer(
        review ->
            "{\"response\":{\"uid\":\""
                + review.path("request").path("uid").asText()
                + "\",\"result\":{\"status\":\"Failure\",\"message\":\"no v2 yet\"}}}");
    ObjectNode crd = crd();
    ConversionWebhook webhook = new ConversionWebhook(new WebhookClient(), crd);
    assertThatThrownBy(() -> webhook.convert(v1Object(), "stable.example.com/v2"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(500);
              assertThat(e.getMessage())
                  .isEqualTo(
                      "Internal error occurred: conversion webhook for stable.example.com/v1,"
                          + " Kind=CronTab failed: conversion request failed for CronTab: no v2"
                          + " yet");
            });

    server.answer(ConversionWebhookTest::convert);
    ((ObjectNode) crd.path("spec").path("conversion").path("webhook"))
        .putArray("conversionReviewVersions")
        .add("v1beta1");
    assertThatThrownBy(
            () ->
                new ConversionWebhook(new WebhookClient(), crd)
                    .convert(v1Object(), "stable.example.com/v2"))
        .hasMessageContaining("no supported conversion review versions");
  }
}
