/**
 * Redsys's query service ("consulta de operaciones", SOAP, action `consultaOperaciones`), pure parts.
 * The request is an XML text `<Messages><Version Ds_Version="0.0"><Message><Transaction>…` whose
 * `<Version>` element is signed (HMAC_SHA256_V1, diversified with the order number) and wrapped in a
 * SOAP envelope as CDATA of `cadenaXML`. The answer (`consultaOperacionesReturn`, escaped XML) holds a
 * `<Response>` with the operation's `Ds_*` fields, or `<ErrorMsg><Ds_ErrorCode>` (XML0024: no such
 * operation).
 */
import { sign } from './signature.js';

const XML_TEXT = /^[0-9A-Za-z]*$/;

/** The `<Version>` element of a single-transaction query (signed as it is). */
export function queryVersionXml(q: { fuc: string; terminal: string; order: string; type: string }): string {
  for (const v of Object.values(q)) if (!XML_TEXT.test(v)) throw new Error('query fields are letters and digits');
  return `<Version Ds_Version="0.0"><Message><Transaction><Ds_MerchantCode>${q.fuc}</Ds_MerchantCode><Ds_Terminal>${q.terminal}</Ds_Terminal><Ds_Order>${q.order}</Ds_Order><Ds_TransactionType>${q.type}</Ds_TransactionType></Transaction></Message></Version>`;
}

/** The whole SOAP request body. */
export function queryRequestXml(key: string, q: { fuc: string; terminal: string; order: string; type: string }): string {
  const version = queryVersionXml(q);
  const messages = `<Messages>${version}<Signature>${sign('HMAC_SHA256_V1', key, q.order, version)}</Signature><SignatureVersion>HMAC_SHA256_V1</SignatureVersion></Messages>`;
  return (
    '<?xml version="1.0"?>\n<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:web="http://webservices.apl02.redsys.es">' +
    `<soapenv:Header/><soapenv:Body><web:consultaOperaciones><cadenaXML><![CDATA[${messages}]]></cadenaXML></web:consultaOperaciones></soapenv:Body></soapenv:Envelope>`
  );
}

function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

/** Text of the first `<tag>` in xml (flat elements only), or null. */
export function xmlField(xml: string, tag: string): string | null {
  const m = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  return m ? unescapeXml(m[1]).trim() : null;
}

/** The fields of a query request (the simulator reads requests with this). */
export function readQueryRequest(body: string): { version: string; signature: string; fuc: string; terminal: string; order: string; type: string } | null {
  const cdata = /<!\[CDATA\[([\s\S]*?)\]\]>/.exec(body)?.[1] ?? unescapeXml(/<cadenaXML>([\s\S]*?)<\/cadenaXML>/.exec(body)?.[1] ?? '');
  const version = /<Version [^>]*>[\s\S]*<\/Version>/.exec(cdata)?.[0];
  const signature = xmlField(cdata, 'Signature');
  const fuc = xmlField(cdata, 'Ds_MerchantCode');
  const terminal = xmlField(cdata, 'Ds_Terminal');
  const order = xmlField(cdata, 'Ds_Order');
  const type = xmlField(cdata, 'Ds_TransactionType');
  if (!version || !signature || !fuc || !terminal || !order || type === null) return null;
  return { version, signature, fuc, terminal, order, type };
}

/** Reads a query answer: the operation's fields, no such operation, or an error code. */
export function readQueryAnswer(body: string): { kind: 'found'; params: Record<string, string> } | { kind: 'none' } | { kind: 'error'; code: string } {
  const ret = /<consultaOperacionesReturn[^>]*>([\s\S]*?)<\/consultaOperacionesReturn>/.exec(body);
  const inner = unescapeXml(ret ? ret[1] : body);
  const error = xmlField(inner, 'Ds_ErrorCode');
  if (error) return error === 'XML0024' ? { kind: 'none' } : { kind: 'error', code: error };
  const response = /<Response[^>]*>([\s\S]*?)<\/Response>/.exec(inner)?.[1];
  if (!response) return { kind: 'error', code: 'unreadable' };
  const params: Record<string, string> = {};
  for (const m of response.matchAll(/<(Ds_[A-Za-z_]+)>([^<]*)<\/\1>/g)) params[m[1]] = unescapeXml(m[2]).trim();
  return { kind: 'found', params };
}
