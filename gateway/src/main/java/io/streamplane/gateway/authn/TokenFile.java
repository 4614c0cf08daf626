package io.streamplane.gateway.authn;

import io.streamplane.log.UserInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Static tokens, as kube-apiserver's {@code --token-auth-file}: a CSV file of {@code
 * token,user,uid,"group1,group2"} lines (at least three columns; the fourth, groups, optional),
 * read once at start. A token not in the file is not this authenticator's.
 */
public final class TokenFile implements BearerToken.TokenAuthenticator {

  private final Map<String, UserInfo> users;

  private TokenFile(Map<String, UserInfo> users) {
    this.users = Map.copyOf(users);
  }

  public static TokenFile read(Path file) {
    try {
      return parse(Files.readString(file), file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the token file " + file, e);
    }
  }

  /** The tokens of a CSV text; an IllegalArgumentException naming {@code source} if malformed. */
  public static TokenFile parse(String csv, String source) {
    Map<String, UserInfo> users = new HashMap<>();
    int number = 0;
    for (String line : csv.split("\r?\n")) {
      number++;
      if (line.isBlank()) {
        continue;
      }
      List<String> record = fields(line);
      if (record.size() < 3) {
        throw new IllegalArgumentException(
            source
                + ": token file '"
                + source
                + "' must have at least 3 columns (token, user name,"
                + " user uid), found "
                + record.size()
                + " on line "
                + number);
      }
      String token = record.get(0);
      if (token.isEmpty()) {
        continue;
      }
      List<String> groups = new ArrayList<>();
      if (record.size() >= 4 && !record.get(3).isBlank()) {
        for (String group : record.get(3).split(",")) {
          groups.add(group.trim());
        }
      }
      users.put(
          token,
          UserInfo.newBuilder()
              .setUsername(record.get(1))
              .setUid(record.get(2))
              .setGroups(groups)
              .build());
    }
    return new TokenFile(users);
  }

  @Override
  public Optional<UserInfo> authenticate(String token) {
    byte[] presented = token.getBytes(StandardCharsets.UTF_8);
    for (Map.Entry<String, UserInfo> entry : users.entrySet()) {
      // Constant time per entry, so a token's prefix does not show in the answer's timing.
      if (MessageDigest.isEqual(entry.getKey().getBytes(StandardCharsets.UTF_8), presented)) {
        return Optional.of(entry.getValue());
      }
    }
    return Optional.empty();
  }

  /** The fields of one CSV line (RFC 4180: double quotes around fields, "" inside them). */
  static List<String> fields(String line) {
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.add(field.toString());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    fields.add(field.toString());
    return fields;
  }
}
