package io.streamplane.kinds.storage;

import static io.streamplane.kinds.KindFixtures.columns;
import static io.streamplane.kinds.KindFixtures.created;
import static io.streamplane.kinds.KindFixtures.messages;
import static io.streamplane.kinds.KindFixtures.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamplane.api.VolumeAttachment;
import org.junit.jupiter.api.Test;

class VolumeAttachmentStrategyTest {

  private final VolumeAttachmentStrategy strategy = new VolumeAttachmentStrategy();

  private VolumeAttachment attachment(String spec) {
    return created(
        strategy, "{'metadata':{'name':'va'},'spec':" + spec + "}", VolumeAttachment.class);
  }

  @Test
  void anAttacherANodeAndOneSourceAreRequired() {
    assertThat(
            strategy.validate(
                attachment(
                    "{'attacher':'csi.example.com','nodeName':'n1','source':"
                        + "{'persistentVolumeName':'pv'}}")))
        .isEmpty();
    assertThat(messages(strategy.validate(attachment("{}"))))
        .containsExactly(
            "spec.attacher: Required value",
            "spec.nodeName: Required value",
            "spec.source: Required value: must specify exactly one of inlineVolumeSpec and"
                + " persistentVolumeName");
  }

  @Test
  void theSpecIsImmutable() {
    String spec =
        "{'attacher':'a.example.com','nodeName':'%s','source':{'persistentVolumeName':'pv'}}";

    assertThat(
            messages(
                strategy.validateUpdate(
                    attachment(spec.formatted("n2")), attachment(spec.formatted("n1")))))
        .containsExactly("spec: Invalid value: \"\": field is immutable");
  }

  @Test
  void printsAttacherVolumeNodeAndWhetherAttached() {
    assertThat(columns(strategy))
        .containsExactly("Name", "Attacher", "PV", "Node", "Attached", "Age");
    assertThat(
            row(
                strategy,
                "{'metadata':{'name':'va'},'spec':{'attacher':'csi.example.com','nodeName':'n1',"
                    + "'source':{'persistentVolumeName':'pv'}},'status':{'attached':true}}"))
        .containsExactly("va", "csi.example.com", "pv", "n1", true, "60m");
  }
}
