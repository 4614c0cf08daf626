package io.streamplane.schema.objects;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The name of the VolumeAttachment of a CSI volume on a node, as the kubelet's CSI plugin names it
 * ({@code getAttachmentName}): {@code csi-<sha256(volume handle + driver + node)>}, so the
 * attach/detach controller that creates it and the node that waits for it agree.
 */
public final class VolumeAttachmentNames {

  private VolumeAttachmentNames() {}

  public static String of(String volumeHandle, String driver, String node) {
    try {
      return "csi-"
          + HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256")
                      .digest((volumeHandle + driver + node).getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
