package io.streamplane.node.runtime.process;

import io.streamplane.api.ConfigMap;
import io.streamplane.api.Container;
import io.streamplane.api.DownwardAPIVolumeFile;
import io.streamplane.api.KeyToPath;
import io.streamplane.api.Pod;
import io.streamplane.api.Secret;
import io.streamplane.api.Volume;
import io.streamplane.api.VolumeMount;
import io.streamplane.api.VolumeProjection;
import io.streamplane.node.runtime.PodInputs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A pod's volumes for the process runtime, and the mounts that put them where containers expect
 * them.
 *
 * <p>Contract: {@link #prepare} makes each volume a directory on the host — {@code emptyDir}: an
 * empty {@code <volumesDir>/<name>} shared by the pod's containers; {@code configMap} and {@code
 * secret}: the same, holding one file per key (or per {@code items} entry, at its {@code path}),
 * from what the node read before the start; {@code hostPath}: the host path itself, created as a
 * directory when missing and its type is unset or {@code DirectoryOrCreate}; {@code projected}: one
 * directory of all its sources' files ({@link #projected}); {@code persistentVolumeClaim} and
 * {@code csi}: the directory the CSI driver published the volume at for the pod ({@link
 * PodInputs#mountedVolumes}, set up by the node before the start). {@link #mounting} wraps a
 * container's command line so that it runs in a private mount namespace ({@code unshare --mount})
 * in which each of its {@code volumeMounts} is bind-mounted at its {@code mountPath} ({@code
 * subPath} inside the volume, read-only when asked), then {@code exec}s the command, which keeps
 * its pid.
 *
 * <p>A sandboxed container's volumes are mounted by its sandbox's setup instead ({@link
 * LinuxSandbox}), inside its own root; {@link #own} gives them to the pod's {@code fsGroup};
 * emptyDirs are writable by every user, as kubelet makes them.
 *
 * <p>Limits: the mounts need {@code unshare} (util-linux) and root; without them the container's
 * start fails. Unsandboxed, a {@code mountPath} missing on the host is created there (empty) so the
 * mount has a target; the mount itself is seen only by the container. Files are not refreshed when
 * the ConfigMap or Secret changes; {@code defaultMode} and {@code mode} are not applied.
 */
final class Volumes {

  private Volumes() {}

  /** Each volume's directory on the host, by volume name. */
  static Map<String, Path> prepare(Pod pod, PodInputs inputs, Path volumesDir) {
    Map<String, Path> dirs = new LinkedHashMap<>();
    List<Volume> volumes = pod.getSpec() == null ? null : pod.getSpec().getVolumes();
    if (volumes == null) {
      return dirs;
    }
    try {
      for (Volume volume : volumes) {
        Path dir = volumesDir.resolve(volume.getName());
        if (volume.getHostPath() != null) {
          Path host = Path.of(volume.getHostPath().getPath());
          String type = volume.getHostPath().getType();
          if ((type == null || type.isEmpty() || type.equals("DirectoryOrCreate"))
              && !Files.exists(host)) {
            Files.createDirectories(host);
          }
          dirs.put(volume.getName(), host);
        } else if (volume.getConfigMap() != null) {
          ConfigMap cm = inputs.configMaps().get(volume.getConfigMap().getName());
          Map<String, byte[]> files = new LinkedHashMap<>();
          if (cm != null && cm.getData() != null) {
            cm.getData().forEach((k, v) -> files.put(k, v.getBytes(StandardCharsets.UTF_8)));
          }
          if (cm != null && cm.getBinaryData() != null) {
            cm.getBinaryData().forEach((k, v) -> files.put(k, bytes(v)));
          }
          dirs.put(volume.getName(), write(dir, files, volume.getConfigMap().getItems()));
        } else if (volume.getSecret() != null) {
          Secret secret = inputs.secrets().get(volume.getSecret().getSecretName());
          Map<String, byte[]> files = new LinkedHashMap<>();
          if (secret != null && secret.getData() != null) {
            secret.getData().forEach((k, v) -> files.put(k, bytes(v)));
          }
          dirs.put(volume.getName(), write(dir, files, volume.getSecret().getItems()));
        } else if (volume.getProjected() != null) {
          dirs.put(volume.getName(), projected(pod, volume, inputs, dir));
        } else if (volume.getPersistentVolumeClaim() != null
            || volume.getCsi() != null
            || volume.getEphemeral() != null) {
          String published = inputs.mountedVolumes().get(volume.getName());
          if (published == null) {
            throw new IllegalStateException(
                "volume " + volume.getName() + ": not published by the node's volume manager");
          }
          dirs.put(volume.getName(), Path.of(published));
        } else {
          // emptyDir: kubelet makes it writable by every user the pod's containers run as
          Files.createDirectories(dir);
          Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
          dirs.put(volume.getName(), dir);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the volumes of the pod", e);
    }
    return dirs;
  }

  /**
   * A projected volume, as kubelet's {@code projected} plugin writes it: every source's files in
   * one directory — a ConfigMap's or Secret's keys (or their {@code items}), downward API fields of
   * the pod ({@code metadata.namespace}, {@code metadata.name}, labels, annotations...), and the
   * ServiceAccount token the node requested for the pod ({@link PodInputs#serviceAccountTokens}).
   * This is how {@code /var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt,namespace}}
   * comes to be. Files are readable by every user (kubelet's default mode 0644), so a container's
   * process reads them whatever user it runs as.
   */
  private static Path projected(Pod pod, Volume volume, PodInputs inputs, Path dir)
      throws IOException {
    Files.createDirectories(dir);
    for (VolumeProjection source : volume.getProjected().getSources()) {
      if (source.getConfigMap() != null) {
        ConfigMap cm = inputs.configMaps().get(source.getConfigMap().getName());
        Map<String, byte[]> files = new LinkedHashMap<>();
        if (cm != null && cm.getData() != null) {
          cm.getData().forEach((k, v) -> files.put(k, v.getBytes(StandardCharsets.UTF_8)));
        }
        if (cm != null && cm.getBinaryData() != null) {
          cm.getBinaryData().forEach((k, v) -> files.put(k, bytes(v)));
        }
        write(dir, files, source.getConfigMap().getItems());
      }
      if (source.getSecret() != null) {
        Secret secret = inputs.secrets().get(source.getSecret().getName());
        Map<String, byte[]> files = new LinkedHashMap<>();
        if (secret != null && secret.getData() != null) {
          secret.getData().forEach((k, v) -> files.put(k, bytes(v)));
        }
        write(dir, files, source.getSecret().getItems());
      }
      if (source.getDownwardAPI() != null && source.getDownwardAPI().getItems() != null) {
        for (DownwardAPIVolumeFile item : source.getDownwardAPI().getItems()) {
          if (item.getFieldRef() == null) {
            continue;
          }
          String value = FieldRefs.value(pod, null, item.getFieldRef().getFieldPath());
          writeFile(
              dir.resolve(item.getPath()),
              (value == null ? "" : value).getBytes(StandardCharsets.UTF_8));
        }
      }
      if (source.getServiceAccountToken() != null) {
        String path = source.getServiceAccountToken().getPath();
        String token =
            inputs.serviceAccountTokens().get(PodInputs.tokenKey(volume.getName(), path));
        if (token != null) {
          writeFile(dir.resolve(path), token.getBytes(StandardCharsets.UTF_8));
        }
      }
    }
    return dir;
  }

  /**
   * Replaces {@code file}'s content at once (a new file moved over the old), so a reader never sees
   * half a token, and makes it readable by every user.
   */
  static void writeFile(Path file, byte[] content) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Path next = file.resolveSibling("." + file.getFileName() + ".next");
    Files.write(next, content);
    next.toFile().setReadable(true, false);
    Files.move(
        next,
        file,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * The command line that mounts {@code container}'s volumes and then runs {@code command}; {@code
   * command} itself when it mounts nothing.
   */
  static List<String> mounting(
      Container container, Map<String, Path> volumes, List<String> command) {
    List<VolumeMount> mounts = container.getVolumeMounts();
    if (mounts == null || mounts.isEmpty()) {
      return command;
    }
    StringBuilder script = new StringBuilder("set -e\n");
    for (VolumeMount mount : mounts) {
      Path volume = volumes.get(mount.getName());
      if (volume == null) {
        throw new IllegalStateException(
            "container " + container.getName() + " mounts unknown volume " + mount.getName());
      }
      Path source =
          mount.getSubPath() == null || mount.getSubPath().isEmpty()
              ? volume
              : volume.resolve(mount.getSubPath());
      String target = quote(mount.getMountPath());
      script.append(Files.isDirectory(source) ? "mkdir -p " + target : touch(mount.getMountPath()));
      script.append("\nmount --bind ").append(quote(source.toString())).append(' ').append(target);
      if (Boolean.TRUE.equals(mount.getReadOnly())) {
        script.append("\nmount -o remount,bind,ro ").append(target);
      }
      script.append('\n');
    }
    script.append("exec \"$@\"\n");
    List<String> line = new ArrayList<>();
    line.addAll(
        List.of(
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "/bin/sh",
            "-c",
            script.toString(),
            "streamplane-mounts"));
    line.addAll(command);
    return line;
  }

  /**
   * Gives the pod's volumes to its {@code fsGroup}, as kubelet does for the volumes it makes
   * (emptyDir, configMap, secret, projected; not hostPath): every file's group becomes {@code
   * fsGroup}, readable and writable by it, directories setgid so new files keep the group.
   */
  static void own(Pod pod, Map<String, Path> dirs, long fsGroup) {
    List<Volume> volumes = pod.getSpec() == null ? null : pod.getSpec().getVolumes();
    if (volumes == null) {
      return;
    }
    for (Volume volume : volumes) {
      Path dir = dirs.get(volume.getName());
      if (volume.getHostPath() != null || dir == null) {
        continue;
      }
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path file : files.toList()) {
          Files.setAttribute(file, "unix:gid", (int) fsGroup, LinkOption.NOFOLLOW_LINKS);
          if (Files.isSymbolicLink(file)) {
            continue;
          }
          Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
          mode.add(PosixFilePermission.GROUP_READ);
          mode.add(PosixFilePermission.GROUP_WRITE);
          if (Files.isDirectory(file)) {
            mode.add(PosixFilePermission.GROUP_EXECUTE);
          }
          Files.setPosixFilePermissions(file, mode);
          if (Files.isDirectory(file)) {
            int bits = (Integer) Files.getAttribute(file, "unix:mode");
            Files.setAttribute(file, "unix:mode", bits | 02000);
          }
        }
      } catch (IOException | RuntimeException e) {
        throw new IllegalStateException(
            "cannot give volume " + volume.getName() + " to fsGroup " + fsGroup + ": " + e, e);
      }
    }
  }

  /** A text value of a Secret's data, as an environment variable holds it. */
  static String text(ByteBuffer value) {
    return new String(bytes(value), StandardCharsets.UTF_8);
  }

  private static String touch(String path) {
    return "mkdir -p \"$(dirname "
        + quote(path)
        + ")\"; [ -e "
        + quote(path)
        + " ] || : > "
        + quote(path);
  }

  private static Path write(Path dir, Map<String, byte[]> files, List<KeyToPath> items)
      throws IOException {
    Files.createDirectories(dir);
    if (items == null || items.isEmpty()) {
      for (var file : files.entrySet()) {
        Files.write(dir.resolve(file.getKey()), file.getValue());
      }
      return dir;
    }
    for (KeyToPath item : items) {
      byte[] content = files.get(item.getKey());
      if (content != null) {
        Path target = dir.resolve(item.getPath());
        Files.createDirectories(target.getParent());
        Files.write(target, content);
      }
    }
    return dir;
  }

  private static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] out = new byte[copy.remaining()];
    copy.get(out);
    return out;
  }

  static String quote(String text) {
    return "'" + text.replace("'", "'\\''") + "'";
  }
}
