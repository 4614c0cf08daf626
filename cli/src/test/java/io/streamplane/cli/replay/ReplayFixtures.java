package io.streamplane.cli.replay;

import io.streamplane.api.ConfigMap;
import io.streamplane.api.ObjectMeta;
import io.streamplane.log.CommandVerb;
import io.streamplane.log.EventType;
import io.streamplane.log.ResourceCommand;
import io.streamplane.log.ResourceEvent;
import io.streamplane.log.UserInfo;
import io.streamplane.schema.objects.KindObjects;
import io.streamplane.schema.serde.AvroSerde;
import io.streamplane.schema.serde.InMemorySchemaCatalog;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Events, commands and their encodings for the replay's brokerless tests. */
final class ReplayFixtures {

  static final AvroSerde<ResourceEvent> EVENTS =
      new AvroSerde<>(ResourceEvent.class, new InMemorySchemaCatalog());
  static final UserInfo ALICE =
      UserInfo.newBuilder().setUsername("alice").setGroups(List.of()).build();

  private ReplayFixtures() {}

  static String key(String namespace, String name) {
    return "configmaps./" + namespace + "/" + name;
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static ConfigMap configMap(String namespace, String name, String version) {
    return ConfigMap.newBuilder()
        .setApiVersion("v1")
        .setKind("ConfigMap")
        .setMetadata(ObjectMeta.newBuilder().setNamespace(namespace).setName(name).build())
        .setData(Map.of("version", version))
        .build();
  }

  static ResourceEvent event(EventType type, String name, String version, long resourceVersion) {
    return ResourceEvent.newBuilder()
        .setType(type)
        .setResource("configmaps")
        .setNamespace("default")
        .setName(name)
        .setEncodedObject(KindObjects.encode(configMap("default", name, version)))
        .setResourceVersion(resourceVersion)
        .setCommandId("cmd-" + resourceVersion)
        .setActor(ALICE)
        .build();
  }

  static byte[] encoded(ResourceEvent event) {
    return EVENTS.encode(event);
  }

  static ResourceCommand command(CommandVerb verb, String name, String version) {
    return ResourceCommand.newBuilder()
        .setId("id-" + name + "-" + version)
        .setVerb(verb)
        .setResource("configmaps")
        .setNamespace("default")
        .setName(name)
        .setEncodedObject(
            KindObjects.encode(version == null ? null : configMap("default", name, version)))
        .setActor(ALICE)
        .build();
  }
}
