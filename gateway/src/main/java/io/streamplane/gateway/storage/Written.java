package io.streamplane.gateway.storage;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** The answer to a successful write: its HTTP code, the stored object, and warnings to send. */
public record Written(int code, ObjectNode object, List<String> warnings) {}
