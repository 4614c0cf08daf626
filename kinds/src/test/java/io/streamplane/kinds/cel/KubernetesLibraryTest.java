package io.streamplane.kinds.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KubernetesLibraryTest {

  private static final CelExpressions CEL = new CelExpressions();
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Object eval(String expression) throws Exception {
    return eval(expression, "{}");
  }

  private static Object eval(String expression, String self) throws Exception {
    CelExpressions.Compiled compiled = CEL.compile(expression, Set.of("self"));
    assertThat(compiled.error()).as(expression).isNull();
    JsonNode value = JSON.readTree(self);
    return CEL.evaluate(compiled, Map.of("self", value));
  }

  private static void holds(String expression) throws Exception {
    assertThat(eval(expression)).as(expression).isEqualTo(true);
  }

  private static void fails(String expression, String message) {
    assertThatThrownBy(() -> eval(expression)).as(expression).hasMessageContaining(message);
  }

  @Test
  void lists() throws Exception {
    holds("[1, 2, 2, 3].isSorted()");
    holds("!['b', 'a'].isSorted()");
    holds("[].isSorted()");
    holds("[1, 2, 3].sum() == 6");
    holds("[1.5, 2.5].sum() == 4.0");
    holds("[].sum() == 0");
    holds("[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3");
    holds("['b', 'c', 'a'].max() == 'c'");
    holds("[1, 2, 1].indexOf(1) == 0 && [1, 2, 1].lastIndexOf(1) == 2");
    holds("[1, 2].indexOf(5) == -1");
    holds("[[1], [2]].indexOf([2]) == 1");
    fails("[].min()", "min called on empty list");
    fails("[].max()", "max called on empty list");
    assertThat(eval("self.items.isSorted()", "{\"items\": [1, 5, 9]}")).isEqualTo(true);
    assertThat(eval("self.items.sum()", "{\"items\": [1, 5, 9]}")).isEqualTo(15L);
  }

  @Test
  void theStringsExtensionAtVersionTwoBesideTheListIndexes() throws Exception {
    holds("'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3");
    holds("'a,b'.split(',') == ['a', 'b'] && ['a', 'b'].join('-') == 'a-b'");
    holds("'  x '.trim() == 'x' && 'Ab'.lowerAscii() == 'ab' && 'abc'.substring(1) == 'bc'");
    holds("'abc'.charAt(1) == 'b' && 'aXa'.replace('a', 'b') == 'bXb'");
    assertThat(CEL.compile("'abc'.reverse()", Set.of()).error()).isNotNull();
  }

  @Test
  void setsAndOptionals() throws Exception {
    holds("sets.contains([1, 2, 3], [3, 1])");
    holds("sets.intersects([1, 2], [2, 5]) && !sets.equivalent([1], [2])");
    holds("optional.of(1).hasValue() && !optional.none().hasValue()");
    holds("{'a': 1}[?'b'].orValue(5) == 5");
    assertThat(eval("self.?spec.?replicas.orValue(1)", "{\"spec\": {}}")).isEqualTo(1L);
  }

  @Test
  void regex() throws Exception {
    holds("'abc 123 def 456'.find('[0-9]+') == '123'");
    holds("'abc'.find('[0-9]+') == ''");
    holds("'abc 123 def 456'.findAll('[0-9]+') == ['123', '456']");
    holds("'abc 123 def 456'.findAll('[0-9]+', 1) == ['123']");
    holds("'abc'.findAll('[0-9]+') == []");
    fails("'abc'.find('[')", "error parsing regexp");
  }

  @Test
  void urls() throws Exception {
    holds("isURL('https://user:pass@example.com:80/path?query=val#fragment')");
    holds("isURL('/absolute-path') && !isURL('../relative-path') && !isURL('https://a:b:c/')");
    holds("url('/path').getScheme() == '' && url('https://example.com/').getScheme() == 'https'");
    holds("url('https://example.com:80/').getHost() == 'example.com:80'");
    holds("url('https://[::1]:80/').getHost() == '[::1]:80'");
    holds("url('https://[::1]:80/').getHostname() == '::1'");
    holds("url('https://127.0.0.1:80/').getHostname() == '127.0.0.1'");
    holds("url('https://example.com:80/').getPort() == '80'");
    holds("url('https://example.com/').getPort() == '' && url('/path').getHost() == ''");
    holds(
        "url('https://example.com/path with spaces/').getEscapedPath() == '/path%20with%20spaces/'");
    holds("url('https://example.com').getEscapedPath() == ''");
    holds(
        "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == {'k1': ['a'], 'k2': ['b',"
            + " 'c']}");
    holds("url('https://example.com/path?').getQuery() == {}");
    holds("url('https://example.com/p#frag').getEscapedPath() == '/p'");
    fails(
        "url('../relative-path')",
        "URL parse error during conversion from string: parse \"../relative-path\": invalid URI"
            + " for request");
    fails("url('https://a:b:c/')", "invalid port \":c\" after host");
  }

  @Test
  void quantities() throws Exception {
    holds("isQuantity('1.3G') && isQuantity('1.3Gi') && isQuantity('10000k')");
    holds(
        "!isQuantity('1,3G') && !isQuantity('200K') && !isQuantity('Three') && !isQuantity('Mi')");
    holds("quantity('50000000G').isInteger() && quantity('50k').isInteger()");
    holds("!quantity('9999999999999999999999999999999999999G').isInteger()");
    holds("quantity('50k').asInteger() == 50000");
    holds("quantity('50k').sub(20000).asApproximateFloat() == 30000.0");
    holds("quantity('50k').add(20) == quantity('50020')");
    holds("quantity('50k').sub(quantity('20k')) == quantity('30k')");
    holds("quantity('50k').add(20).sub(quantity('100k')).sub(-50000) == quantity('20')");
    holds("quantity('200M').compareTo(quantity('0.2G')) == 0");
    holds("quantity('50M').compareTo(quantity('50Mi')) == -1");
    holds("quantity('150Mi').isGreaterThan(quantity('100Mi'))");
    holds("quantity('50M').isLessThan(quantity('100M'))");
    holds("quantity('-1').sign() == -1 && quantity('0').sign() == 0 && quantity('1m').sign() == 1");
    holds("!quantity('1m').isInteger()");
    fails(
        "quantity('9999999999999999999999999999999999999G').asInteger()",
        "cannot convert value to integer");
    fails("quantity('Three')", "quantities must match the regular expression");
    assertThat(eval("quantity(self.memory).isLessThan(quantity('1Gi'))", "{\"memory\": \"512Mi\"}"))
        .isEqualTo(true);
  }

  @Test
  void ips() throws Exception {
    holds("isIP('127.0.0.1') && isIP('::1') && !isIP('127.0.0.256') && !isIP(':::1')");
    holds("!isIP('::ffff:1.2.3.4') && !isIP('fe80::1%eth0') && !isIP('127.0.0.01')");
    holds("ip.isCanonical('127.0.0.1') && ip.isCanonical('2001:db8::abcd')");
    holds("!ip.isCanonical('2001:DB8::ABCD') && !ip.isCanonical('2001:db8::0:0:0:abcd')");
    holds("ip('127.0.0.1').family() == 4 && ip('::1').family() == 6");
    holds(
        "ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified() && !ip('::1').isUnspecified()");
    holds(
        "ip('127.0.0.1').isLoopback() && ip('::1').isLoopback() && !ip('192.168.0.1').isLoopback()");
    holds("ip('224.0.0.1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast()");
    holds("ip('ff02::1').isLinkLocalMulticast() && !ip('fd00::1').isLinkLocalMulticast()");
    holds("ip('169.254.169.254').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast()");
    holds("!ip('fd80::1').isLinkLocalUnicast()");
    holds("ip('192.168.0.1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast()");
    holds("ip('2001:db8::abcd').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()");
    holds("ip('127.0.0.1') == ip('127.0.0.1') && ip('::1') != ip('::2')");
    holds("string(ip('2001:db8:0:0::1')) == '2001:db8::1'");
    fails(
        "ip('127.0.0.256')",
        "IP Address \"127.0.0.256\" parse error during conversion from string");
    fails("ip('::ffff:1.2.3.4')", "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed");
  }

  @Test
  void cidrs() throws Exception {
    holds("isCIDR('192.168.0.0/16') && isCIDR('::1/128')");
    holds("!isCIDR('192.168.0.0/33') && !isCIDR('::1/129')");
    holds("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))");
    holds("!cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))");
    holds("cidr('192.168.0.0/24').containsIP('192.168.0.1')");
    holds("!cidr('192.168.0.0/24').containsIP('::1')");
    holds("cidr('192.168.0.0/16').containsCIDR(cidr('192.168.10.0/24'))");
    holds("!cidr('192.168.1.0/24').containsCIDR(cidr('192.168.2.0/24'))");
    holds("cidr('192.168.0.0/16').containsCIDR('192.168.10.0/24')");
    holds("!cidr('192.168.10.0/24').containsCIDR('192.168.0.0/16')");
    holds("cidr('192.168.0.1/24').ip() == ip('192.168.0.1')");
    holds("cidr('::1/128').ip().family() == 6");
    holds("cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')");
    holds("cidr('192.168.0.1/24') != cidr('192.168.0.1/24').masked()");
    holds("cidr('192.168.0.0/16').prefixLength() == 16 && cidr('::1/128').prefixLength() == 128");
    holds("string(cidr('10.0.0.0/8')) == '10.0.0.0/8'");
    fails("cidr('192.168.0.0/33')", "network address parse error during conversion from string");
  }

  @Test
  void formats() throws Exception {
    holds("!format.dns1123Label().validate('my-label-name').hasValue()");
    holds(
        "format.dns1123Label().validate('My_Label').value() == ['a lowercase RFC 1123 label must"
            + " consist of lower case alphanumeric characters or \\'-\\', and must start and end"
            + " with an alphanumeric character (e.g. \\'my-name\\',  or \\'123-abc\\', regex used"
            + " for validation is \\'[a-z0-9]([-a-z0-9]*[a-z0-9])?\\')']");
    holds("format.dns1123Label().validate('a.b').value() == ['must not contain dots']");
    holds("!format.dns1123Subdomain().validate('apiextensions.k8s.io').hasValue()");
    holds("!format.dns1035Label().validate('my-label-name').hasValue()");
    holds("format.dns1035Label().validate('1abc').hasValue()");
    holds("!format.qualifiedName().validate('apiextensions.k8s.io/v1beta1').hasValue()");
    holds("!format.dns1123LabelPrefix().validate('my-label-prefix-').hasValue()");
    holds("format.dns1123Label().validate('my-label-prefix-').hasValue()");
    holds("!format.labelValue().validate('').hasValue()");
    holds("!format.uri().validate('http://example.com').hasValue()");
    holds("format.uri().validate('x').value() == ['parse \"x\": invalid URI for request']");
    holds("!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()");
    holds("format.uuid().validate('nope').value() == ['does not match the UUID format']");
    holds("!format.byte().validate('aGVsbG8=').hasValue()");
    holds("!format.date().validate('2021-01-01').hasValue()");
    holds("format.date().validate('2021-13-01').value() == ['invalid date']");
    holds("!format.datetime().validate('2021-01-01T00:00:00Z').hasValue()");
    holds("format.named('dns1123Label').hasValue() && !format.named('nope').hasValue()");
    holds("!format.named('labelValue').value().validate('abc').hasValue()");
    assertThat(CEL.compile("format.nope()", Set.of()).error()).isNotNull();
  }

  @Test
  void theLibraryIsTheSameForEveryVariable() throws Exception {
    Object result = eval("self.all(k, isQuantity(self[k]))", "{\"a\": \"1Gi\", \"b\": \"100m\"}");
    assertThat(result).isEqualTo(true);
    assertThat(eval("self.hosts.map(h, url(h).getHostname())", "{\"hosts\": [\"https://a.b:1/\"]}"))
        .isEqualTo(List.of("a.b"));
  }
}
