package io.streamplane.gateway.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import java.util.Map;

/**
 * The OpenAPI v2 document in the protobuf form kube-apiserver serves and client-go's {@code
 * OpenAPISchema} reads: gnostic's {@code openapi.v2.Document} (media type {@link
 * OpenApiV2#PROTOBUF}). The messages are declared here from gnostic's published {@code
 * OpenAPIv2.proto} — the names and field numbers of the messages this document uses; fields of
 * messages it never holds (XML, OAuth2 security, files) are left out, which changes nothing on the
 * wire — and the JSON document is compiled into them as gnostic's compiler does: maps become {@code
 * Named*} lists in document order, {@code x-} keys vendor extensions whose value is its YAML text
 * (JSON is YAML), {@code $ref} a {@code _ref}, a parameter {@code in: body} a body parameter and
 * any other the sub-schema of its location.
 *
 * <p>The descriptor is declared proto2 so that a field set to its default (an {@code
 * additionalProperties: false}) is still written, as proto3's oneof members are.
 */
public final class OpenApiV2Protobuf {

  private static final Map<String, String[]> MESSAGES =
      Map.ofEntries(
          Map.entry("Any", new String[] {"yaml:2:string"}),
          Map.entry("NamedAny", new String[] {"name:1:string", "value:2:Any"}),
          Map.entry(
              "Info",
              new String[] {
                "title:1:string",
                "version:2:string",
                "description:3:string",
                "vendor_extension:7:*NamedAny"
              }),
          Map.entry(
              "Document",
              new String[] {
                "swagger:1:string",
                "info:2:Info",
                "host:3:string",
                "base_path:4:string",
                "schemes:5:*string",
                "consumes:6:*string",
                "produces:7:*string",
                "paths:8:Paths",
                "definitions:9:Definitions",
                "parameters:10:ParameterDefinitions",
                "responses:11:ResponseDefinitions",
                "security:12:*SecurityRequirement",
                "security_definitions:13:SecurityDefinitions",
                "vendor_extension:16:*NamedAny"
              }),
          Map.entry(
              "Paths", new String[] {"vendor_extension:1:*NamedAny", "path:2:*NamedPathItem"}),
          Map.entry("NamedPathItem", new String[] {"name:1:string", "value:2:PathItem"}),
          Map.entry(
              "PathItem",
              new String[] {
                "_ref:1:string",
                "get:2:Operation",
                "put:3:Operation",
                "post:4:Operation",
                "delete:5:Operation",
                "options:6:Operation",
                "head:7:Operation",
                "patch:8:Operation",
                "parameters:9:*ParametersItem",
                "vendor_extension:10:*NamedAny"
              }),
          Map.entry(
              "Operation",
              new String[] {
                "tags:1:*string",
                "summary:2:string",
                "description:3:string",
                "operation_id:5:string",
                "produces:6:*string",
                "consumes:7:*string",
                "parameters:8:*ParametersItem",
                "responses:9:Responses",
                "schemes:10:*string",
                "deprecated:11:bool",
                "vendor_extension:13:*NamedAny"
              }),
          Map.entry(
              "ParametersItem",
              new String[] {"parameter:1:Parameter", "json_reference:2:JsonReference"}),
          Map.entry("JsonReference", new String[] {"_ref:1:string", "description:2:string"}),
          Map.entry(
              "Parameter",
              new String[] {
                "body_parameter:1:BodyParameter", "non_body_parameter:2:NonBodyParameter"
              }),
          Map.entry(
              "BodyParameter",
              new String[] {
                "description:1:string",
                "name:2:string",
                "in:3:string",
                "required:4:bool",
                "schema:5:Schema",
                "vendor_extension:6:*NamedAny"
              }),
          Map.entry(
              "NonBodyParameter",
              new String[] {
                "header_parameter_sub_schema:1:HeaderParameterSubSchema",
                "form_data_parameter_sub_schema:2:FormDataParameterSubSchema",
                "query_parameter_sub_schema:3:QueryParameterSubSchema",
                "path_parameter_sub_schema:4:PathParameterSubSchema"
              }),
          Map.entry("QueryParameterSubSchema", subSchema(true)),
          Map.entry("FormDataParameterSubSchema", subSchema(true)),
          Map.entry("PathParameterSubSchema", subSchema(false)),
          Map.entry("HeaderParameterSubSchema", subSchema(false)),
          Map.entry(
              "Responses",
              new String[] {"response_code:1:*NamedResponseValue", "vendor_extension:2:*NamedAny"}),
          Map.entry("NamedResponseValue", new String[] {"name:1:string", "value:2:ResponseValue"}),
          Map.entry(
              "ResponseValue",
              new String[] {"response:1:Response", "json_reference:2:JsonReference"}),
          Map.entry(
              "Response",
              new String[] {
                "description:1:string", "schema:2:SchemaItem", "vendor_extension:5:*NamedAny"
              }),
          Map.entry("SchemaItem", new String[] {"schema:1:Schema"}),
          Map.entry(
              "Schema",
              new String[] {
                "_ref:1:string",
                "format:2:string",
                "title:3:string",
                "description:4:string",
                "default:5:Any",
                "multiple_of:6:double",
                "maximum:7:double",
                "exclusive_maximum:8:bool",
                "minimum:9:double",
                "exclusive_minimum:10:bool",
                "max_length:11:int64",
                "min_length:12:int64",
                "pattern:13:string",
                "max_items:14:int64",
                "min_items:15:int64",
                "unique_items:16:bool",
                "max_properties:17:int64",
                "min_properties:18:int64",
                "required:19:*string",
                "enum:20:*Any",
                "additional_properties:21:AdditionalPropertiesItem",
                "type:22:TypeItem",
                "items:23:ItemsItem",
                "all_of:24:*Schema",
                "properties:25:Properties",
                "discriminator:26:string",
                "read_only:27:bool",
                "example:30:Any",
                "vendor_extension:31:*NamedAny"
              }),
          Map.entry("AdditionalPropertiesItem", new String[] {"schema:1:Schema", "boolean:2:bool"}),
          Map.entry("TypeItem", new String[] {"value:1:*string"}),
          Map.entry("ItemsItem", new String[] {"schema:1:*Schema"}),
          Map.entry("Properties", new String[] {"additional_properties:1:*NamedSchema"}),
          Map.entry("Definitions", new String[] {"additional_properties:1:*NamedSchema"}),
          Map.entry("NamedSchema", new String[] {"name:1:string", "value:2:Schema"}),
          Map.entry(
              "ParameterDefinitions", new String[] {"additional_properties:1:*NamedParameter"}),
          Map.entry("NamedParameter", new String[] {"name:1:string", "value:2:Parameter"}),
          Map.entry("ResponseDefinitions", new String[] {"additional_properties:1:*NamedResponse"}),
          Map.entry("NamedResponse", new String[] {"name:1:string", "value:2:Response"}),
          Map.entry(
              "SecurityDefinitions",
              new String[] {"additional_properties:1:*NamedSecurityDefinitionsItem"}),
          Map.entry(
              "NamedSecurityDefinitionsItem",
              new String[] {"name:1:string", "value:2:SecurityDefinitionsItem"}),
          Map.entry(
              "SecurityDefinitionsItem",
              new String[] {
                "basic_authentication_security:1:BasicAuthenticationSecurity",
                "api_key_security:2:ApiKeySecurity"
              }),
          Map.entry(
              "BasicAuthenticationSecurity",
              new String[] {
                "type:1:string", "description:2:string", "vendor_extension:3:*NamedAny"
              }),
          Map.entry(
              "ApiKeySecurity",
              new String[] {
                "type:1:string",
                "name:2:string",
                "in:3:string",
                "description:4:string",
                "vendor_extension:5:*NamedAny"
              }),
          Map.entry(
              "SecurityRequirement", new String[] {"additional_properties:1:*NamedStringArray"}),
          Map.entry("NamedStringArray", new String[] {"name:1:string", "value:2:StringArray"}),
          Map.entry("StringArray", new String[] {"value:1:*string"}));

  /** The fields of a parameter sub-schema; query and formData have allowEmptyValue (5). */
  private static String[] subSchema(boolean allowEmpty) {
    int shift = allowEmpty ? 1 : 0;
    String[] common = {
      "required:1:bool", "in:2:string", "description:3:string", "name:4:string",
    };
    String[] rest = {
      "type:" + (5 + shift) + ":string",
      "format:" + (6 + shift) + ":string",
      "collection_format:" + (8 + shift) + ":string",
      "default:" + (9 + shift) + ":Any",
      "maximum:" + (10 + shift) + ":double",
      "minimum:" + (12 + shift) + ":double",
      "pattern:" + (16 + shift) + ":string",
      "unique_items:" + (19 + shift) + ":bool",
      "enum:" + (20 + shift) + ":*Any",
      "vendor_extension:" + (22 + shift) + ":*NamedAny"
    };
    String[] all = new String[common.length + rest.length + shift];
    System.arraycopy(common, 0, all, 0, common.length);
    if (allowEmpty) {
      all[common.length] = "allow_empty_value:5:bool";
    }
    System.arraycopy(rest, 0, all, common.length + shift, rest.length);
    return all;
  }

  private static final FileDescriptor FILE = file();

  private OpenApiV2Protobuf() {}

  private static FileDescriptor file() {
    FileDescriptorProto.Builder file =
        FileDescriptorProto.newBuilder()
            .setName("openapiv2/OpenAPIv2.proto")
            .setPackage("openapi.v2")
            .setSyntax("proto2");
    MESSAGES.forEach(
        (name, fields) -> {
          DescriptorProto.Builder message = DescriptorProto.newBuilder().setName(name);
          for (String spec : fields) {
            String[] parts = spec.split(":");
            boolean repeated = parts[2].startsWith("*");
            String type = repeated ? parts[2].substring(1) : parts[2];
            FieldDescriptorProto.Builder field =
                FieldDescriptorProto.newBuilder()
                    .setName(parts[0])
                    .setNumber(Integer.parseInt(parts[1]))
                    .setLabel(
                        repeated
                            ? FieldDescriptorProto.Label.LABEL_REPEATED
                            : FieldDescriptorProto.Label.LABEL_OPTIONAL);
            switch (type) {
              case "string" -> field.setType(FieldDescriptorProto.Type.TYPE_STRING);
              case "bool" -> field.setType(FieldDescriptorProto.Type.TYPE_BOOL);
              case "double" -> field.setType(FieldDescriptorProto.Type.TYPE_DOUBLE);
              case "int64" -> field.setType(FieldDescriptorProto.Type.TYPE_INT64);
              default ->
                  field
                      .setType(FieldDescriptorProto.Type.TYPE_MESSAGE)
                      .setTypeName(".openapi.v2." + type);
            }
            message.addField(field);
          }
          file.addMessageType(message);
        });
    try {
      return FileDescriptor.buildFrom(file.build(), new FileDescriptor[0]);
    } catch (DescriptorValidationException e) {
      throw new IllegalStateException("the OpenAPI v2 messages do not hold together", e);
    }
  }

  static Descriptor message(String name) {
    return FILE.findMessageTypeByName(name);
  }

  /** The document compiled into gnostic's {@code Document}. */
  public static byte[] encode(JsonNode document) {
    return compile(document, message("Document")).toByteArray();
  }

  /** Decodes an encoded document, to check it. */
  static DynamicMessage decode(byte[] bytes)
      throws com.google.protobuf.InvalidProtocolBufferException {
    return DynamicMessage.parseFrom(message("Document"), bytes);
  }

  // ---------------------------------------------------------------- compiling

  private static Message compile(JsonNode json, Descriptor type) {
    DynamicMessage.Builder out = DynamicMessage.newBuilder(type);
    switch (type.getName()) {
      case "Any" -> {
        out.setField(field(type, "yaml"), json.toString() + "\n");
        return out.build();
      }
      case "Paths" -> {
        named(json, out, type, "path", "NamedPathItem", "PathItem", true);
        return out.build();
      }
      case "Definitions", "Properties" -> {
        named(json, out, type, "additional_properties", "NamedSchema", "Schema", false);
        return out.build();
      }
      case "ParameterDefinitions" -> {
        named(json, out, type, "additional_properties", "NamedParameter", "Parameter", false);
        return out.build();
      }
      case "ResponseDefinitions" -> {
        named(json, out, type, "additional_properties", "NamedResponse", "Response", false);
        return out.build();
      }
      case "Responses" -> {
        named(json, out, type, "response_code", "NamedResponseValue", "ResponseValue", true);
        return out.build();
      }
      case "SecurityDefinitions" -> {
        named(
            json,
            out,
            type,
            "additional_properties",
            "NamedSecurityDefinitionsItem",
            "SecurityDefinitionsItem",
            false);
        return out.build();
      }
      case "SecurityRequirement" -> {
        named(json, out, type, "additional_properties", "NamedStringArray", "StringArray", false);
        return out.build();
      }
      case "StringArray", "TypeItem" -> {
        if (json.isArray()) {
          json.forEach(v -> out.addRepeatedField(field(type, "value"), v.asText()));
        } else {
          out.addRepeatedField(field(type, "value"), json.asText());
        }
        return out.build();
      }
      case "ItemsItem" -> {
        if (json.isArray()) {
          json.forEach(
              v -> out.addRepeatedField(field(type, "schema"), compile(v, message("Schema"))));
        } else {
          out.addRepeatedField(field(type, "schema"), compile(json, message("Schema")));
        }
        return out.build();
      }
      case "AdditionalPropertiesItem" -> {
        if (json.isBoolean()) {
          out.setField(field(type, "boolean"), json.booleanValue());
        } else {
          out.setField(field(type, "schema"), compile(json, message("Schema")));
        }
        return out.build();
      }
      case "ParametersItem", "ResponseValue" -> {
        if (json.has("$ref")) {
          out.setField(field(type, "json_reference"), compile(json, message("JsonReference")));
        } else {
          String member = type.getName().equals("ParametersItem") ? "parameter" : "response";
          out.setField(field(type, member), compile(json, field(type, member).getMessageType()));
        }
        return out.build();
      }
      case "Parameter" -> {
        String in = json.path("in").asText("");
        if (in.equals("body")) {
          out.setField(field(type, "body_parameter"), compile(json, message("BodyParameter")));
        } else {
          String location =
              switch (in) {
                case "header" -> "header_parameter_sub_schema";
                case "formData" -> "form_data_parameter_sub_schema";
                case "path" -> "path_parameter_sub_schema";
                default -> "query_parameter_sub_schema";
              };
          Descriptor nonBody = message("NonBodyParameter");
          out.setField(
              field(type, "non_body_parameter"),
              DynamicMessage.newBuilder(nonBody)
                  .setField(
                      field(nonBody, location),
                      compile(json, field(nonBody, location).getMessageType()))
                  .build());
        }
        return out.build();
      }
      case "SchemaItem" -> {
        out.setField(field(type, "schema"), compile(json, message("Schema")));
        return out.build();
      }
      case "SecurityDefinitionsItem" -> {
        String member =
            json.path("type").asText("").equals("basic")
                ? "basic_authentication_security"
                : "api_key_security";
        out.setField(field(type, member), compile(json, field(type, member).getMessageType()));
        return out.build();
      }
      default -> {
        fields(json, out, type);
        return out.build();
      }
    }
  }

  /**
   * An object's keys as the message's fields: camelCase as snake_case, {@code x-} as extensions.
   */
  private static void fields(JsonNode json, DynamicMessage.Builder out, Descriptor type) {
    for (Map.Entry<String, JsonNode> entry : json.properties()) {
      String key = entry.getKey();
      JsonNode value = entry.getValue();
      if (key.startsWith("x-")) {
        FieldDescriptor extensions = type.findFieldByName("vendor_extension");
        if (extensions != null) {
          out.addRepeatedField(extensions, namedAny(key, value));
        }
        continue;
      }
      FieldDescriptor field = type.findFieldByName(key.equals("$ref") ? "_ref" : snake(key));
      if (field == null || value.isNull()) {
        continue; // not in the messages this document uses
      }
      if (field.isRepeated()) {
        for (JsonNode item : value) {
          out.addRepeatedField(field, scalarOrMessage(field, item));
        }
      } else {
        out.setField(field, scalarOrMessage(field, value));
      }
    }
  }

  private static Object scalarOrMessage(FieldDescriptor field, JsonNode value) {
    return switch (field.getJavaType()) {
      case STRING -> value.isTextual() ? value.textValue() : value.toString();
      case BOOLEAN -> value.asBoolean();
      case DOUBLE -> value.asDouble();
      case LONG -> value.asLong();
      case MESSAGE -> compile(value, field.getMessageType());
      default -> throw new IllegalStateException("no such field type " + field.getJavaType());
    };
  }

  /** A JSON object as a list of {@code Named*} pairs, its {@code x-} keys as extensions. */
  private static void named(
      JsonNode json,
      DynamicMessage.Builder out,
      Descriptor type,
      String listField,
      String pairType,
      String valueType,
      boolean extensions) {
    Descriptor pair = message(pairType);
    for (Map.Entry<String, JsonNode> entry : json.properties()) {
      if (extensions && entry.getKey().startsWith("x-")) {
        out.addRepeatedField(
            field(type, "vendor_extension"), namedAny(entry.getKey(), entry.getValue()));
        continue;
      }
      out.addRepeatedField(
          field(type, listField),
          DynamicMessage.newBuilder(pair)
              .setField(field(pair, "name"), entry.getKey())
              .setField(field(pair, "value"), compile(entry.getValue(), message(valueType)))
              .build());
    }
  }

  private static Message namedAny(String name, JsonNode value) {
    Descriptor pair = message("NamedAny");
    return DynamicMessage.newBuilder(pair)
        .setField(field(pair, "name"), name)
        .setField(field(pair, "value"), compile(value, message("Any")))
        .build();
  }

  private static FieldDescriptor field(Descriptor type, String name) {
    FieldDescriptor field = type.findFieldByName(name);
    if (field == null) {
      throw new IllegalStateException(type.getName() + " has no field " + name);
    }
    return field;
  }

  private static String snake(String camel) {
    StringBuilder s = new StringBuilder();
    for (char c : camel.toCharArray()) {
      if (Character.isUpperCase(c)) {
        s.append('_').append(Character.toLowerCase(c));
      } else {
        s.append(c);
      }
    }
    return s.toString();
  }
}
