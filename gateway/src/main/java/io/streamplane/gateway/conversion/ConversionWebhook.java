package io.streamplane.gateway.conversion;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamplane.gateway.api.ApiException;
import io.streamplane.gateway.api.Statuses;
import io.streamplane.gateway.webhook.WebhookClient;
import io.streamplane.gateway.webhook.WebhookClient.CallFailure;
import io.streamplane.kinds.apiextensions.CustomResources.VersionConverter;
import java.util.UUID;

/**
 * A CustomResourceDefinition's {@code Webhook} conversion, as apiextensions-apiserver's webhook
 * converter does it: a {@code ConversionReview} of apiextensions.k8s.io/v1 ({@code request.uid},
 * {@code desiredAPIVersion}, the object in {@code objects}) sent to {@code
 * spec.conversion.webhook.clientConfig} through the {@link WebhookClient} within 30 seconds; the
 * answer must carry the same uid, {@code result.status: Success} and one converted object of the
 * desired version and the same kind. The converted object keeps the original's metadata except
 * labels and annotations, the only metadata a webhook may change.
 *
 * <p>A failure is kube-apiserver's 500: {@code conversion webhook for stable.example.com/v2,
 * Kind=CronTab failed: ...}. Limits: objects are sent one per review (kube-apiserver sends a list's
 * objects together), and only {@code v1} reviews are spoken: a definition whose {@code
 * conversionReviewVersions} lacks {@code v1} fails every conversion.
 */
public final class ConversionWebhook implements VersionConverter {

  private static final int TIMEOUT_SECONDS = 30;

  private final WebhookClient client;
  private final JsonNode clientConfig;
  private final boolean speaksV1;

  /** The converter of {@code crd}, whose conversion strategy is {@code Webhook}. */
  public ConversionWebhook(WebhookClient client, JsonNode crd) {
    JsonNode webhook = crd.path("spec").path("conversion").path("webhook");
    this.client = client;
    this.clientConfig = webhook.path("clientConfig");
    boolean v1 = false;
    for (JsonNode version : webhook.path("conversionReviewVersions")) {
      v1 |= version.asText().equals("v1");
    }
    this.speaksV1 = v1;
  }

  @Override
  public ObjectNode convert(ObjectNode object, String apiVersion) {
    try {
      return converted(object, apiVersion);
    } catch (CallFailure e) {
      throw new ApiException(
          Statuses.internalError(
              "conversion webhook for "
                  + gvk(object.path("apiVersion").asText(), object.path("kind").asText())
                  + " failed: "
                  + e.getMessage()));
    }
  }

  private ObjectNode converted(ObjectNode object, String apiVersion) throws CallFailure {
    if (!speaksV1) {
      throw new CallFailure("no supported conversion review versions: the server speaks v1 only");
    }
    String uid = UUID.randomUUID().toString();
    ObjectNode review = JsonNodeFactory.instance.objectNode();
    review.put("apiVersion", "apiextensions.k8s.io/v1").put("kind", "ConversionReview");
    ObjectNode request = review.putObject("request");
    request.put("uid", uid).put("desiredAPIVersion", apiVersion);
    request.putArray("objects").add(object);
    JsonNode response = client.post(clientConfig, TIMEOUT_SECONDS, review).path("response");
    if (!response.isObject()) {
      throw new CallFailure("conversion review response was absent");
    }
    if (!uid.equals(response.path("uid").asText(""))) {
      throw new CallFailure(
          "expected response.uid=\"" + uid + "\", got \"" + response.path("uid").asText("") + "\"");
    }
    JsonNode result = response.path("result");
    if (!result.path("status").asText("").equals("Success")) {
      throw new CallFailure(
          "conversion request failed for "
              + object.path("kind").asText()
              + ": "
              + result.path("message").asText(""));
    }
    JsonNode objects = response.path("convertedObjects");
    if (!objects.isArray() || objects.size() != 1) {
      throw new CallFailure(
          "returned " + (objects.isArray() ? objects.size() : 0) + " objects, expected 1");
    }
    if (!(objects.get(0) instanceof ObjectNode convertedObject)) {
      throw new CallFailure("invalid converted object: not an object");
    }
    if (!apiVersion.equals(convertedObject.path("apiVersion").asText())) {
      throw new CallFailure(
          "invalid converted object: expected apiVersion "
              + apiVersion
              + ", got "
              + convertedObject.path("apiVersion").asText());
    }
    if (!object.path("kind").asText().equals(convertedObject.path("kind").asText())) {
      throw new CallFailure(
          "invalid converted object: expected kind "
              + object.path("kind").asText()
              + ", got "
              + convertedObject.path("kind").asText());
    }
    ObjectNode metadata = object.path("metadata").deepCopy();
    JsonNode changed = convertedObject.path("metadata");
    for (String field : new String[] {"labels", "annotations"}) {
      if (changed.has(field)) {
        metadata.set(field, changed.get(field));
      } else {
        metadata.remove(field);
      }
    }
    ObjectNode out = convertedObject.deepCopy();
    out.set("metadata", metadata);
    return out;
  }

  /** apimachinery's GroupVersionKind.String(): "stable.example.com/v1, Kind=CronTab". */
  private static String gvk(String apiVersion, String kind) {
    return apiVersion + ", Kind=" + kind;
  }
}
