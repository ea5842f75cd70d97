/**
 * Every code of the Redsys code table (codes.ts) held to the meaning Redsys publishes for it: the
 * `Ds_Response` and SIS error tables of Redsys's integration guides, as redsys-easy's `error-codes.ts`
 * carries them (a machine-readable copy, read through `getResponseCodeMessage` / `getSISErrorCodeMessage`).
 * For the issuer codes Redsys's current table leaves out (0104, 0107, ...), the meaning is the one of
 * ActiveMerchant's Redsys gateway (`RESPONSE_TEXTS`), written here. Each entry says what Redsys's text
 * must say and what our explanation must say, so a code explained as something else fails.
 */
import { describe, expect, it } from 'vitest';
import { getResponseCodeMessage, getSISErrorCodeMessage } from 'redsys-easy';
import { DOCUMENTED_RESPONSE_CODES, DOCUMENTED_SIS_CODES, IN_PROGRESS_CODES, inProgress, refusalOf } from '../../src/processors/redsys/codes.js';

/** Where the meaning comes from: Redsys's table (a pattern its text matches), or ActiveMerchant's text. */
type Source = RegExp | { activeMerchant: string };

/** `Ds_Response` codes: [what the published meaning says, what our explanation must say]. */
const RESPONSES: Record<number, [Source, RegExp]> = {
  101: [/^Tarjeta caducada$/, /^expired card$/],
  102: [/excepción transitoria o bajo sospecha de fraude$/, /temporary exception or suspected of fraud$/],
  104: [{ activeMerchant: 'Transaction not permitted' }, /operation not allowed/],
  106: [/bloqueada, exceso de pin erróneo/, /too many wrong PIN entries/],
  107: [{ activeMerchant: 'Contact the card issuer' }, /^contact the card issuer$/],
  109: [{ activeMerchant: 'Invalid identification by merchant or POS terminal' }, /invalid merchant or terminal identification/],
  110: [{ activeMerchant: 'Invalid amount' }, /^invalid amount$/],
  114: [{ activeMerchant: 'Card cannot be used to the requested transaction' }, /does not support this operation/],
  116: [{ activeMerchant: 'Insufficient credit' }, /^insufficient funds$/],
  118: [{ activeMerchant: 'Non-registered card' }, /not registered/],
  125: [/^Tarjeta no efectiva$/, /not effective/],
  129: [/^CVV Incorrecto$/, /^wrong CVV/],
  167: [{ activeMerchant: 'Contact the card issuer: suspected fraud' }, /suspected fraud/],
  172: [/^Denegada, no repetir\.$/, /^declined, do not retry$/],
  173: [/no repetir sin actualizar datos de tarjeta/, /without updating the card data/],
  174: [/no repetir antes de 72 horas/, /before 72 hours/],
  180: [/^Tarjeta no válida/, /card not valid/],
  181: [{ activeMerchant: 'Card with credit or debit restrictions' }, /credit restrictions/],
  182: [{ activeMerchant: 'Card with credit or debit restrictions' }, /debit restrictions/],
  184: [/no se ha autenticado/, /not authenticated/],
  190: [/^Denegación emisor$/, /declined by the issuer without a reason/],
  191: [/^Fecha de caducidad errónea$/, /wrong expiry date/],
  195: [/^Requiere autenticación SCA$/, /strong customer authentication required/],
  201: [{ activeMerchant: 'Card expired' }, /^expired card/],
  202: [/bajo sospecha de fraude con retirada de tarjeta$/, /suspected of fraud \(retain card\)/],
  204: [{ activeMerchant: 'Transaction not permitted' }, /operation not allowed/],
  207: [{ activeMerchant: 'Contact the card issuer' }, /contact the card issuer/],
  208: [{ activeMerchant: 'Lost or stolen card' }, /lost or stolen/],
  209: [{ activeMerchant: 'Lost or stolen card' }, /lost or stolen/],
  280: [{ activeMerchant: 'CVV2/CVC2 Error' }, /wrong CVV/],
  290: [{ activeMerchant: 'Declined with no specific reason' }, /without a reason/],
  904: [/^Problema con la configuración del comercio$/, /merchant's configuration/],
  909: [/^Error de sistema$/, /^system error/],
  912: [/^Emisor no disponible$/, /^issuer unavailable$/],
  913: [/^Pedido repetido$/, /^duplicate order number$/],
  944: [/^Sesión Incorrecta$/, /^wrong session$/],
  950: [/^Operación de devolución no permitida$/, /^refund not allowed$/],
  9912: [/algún problema\s+y se ha de generar una anulación automática/, /had a problem and is cancelled automatically/],
  9915: [/A petición del usuario se cancela el pago/, /customer cancelled the payment/],
  9997: [/misma tarjeta hay varios pagos en «vuelo»/, /same card is in flight/],
};

/** 9998 and 9999: in progress, no decision. */
const IN_PROGRESS: Record<number, [RegExp, RegExp]> = {
  9998: [/^Operación en proceso de solicitud de datos de tarjeta$/, /in progress: the card's data are being requested/],
  9999: [/^Operación que ha sido redirigida al emisor a autenticar$/, /in progress: sent to the issuer to authenticate the cardholder/],
};

const SIS: Record<string, [RegExp, RegExp]> = {
  SIS0007: [/mensaje enviado por el comercio no es correcto/, /message sent to Redsys is not correct/],
  SIS0008: [/^falta Ds_Merchant_MerchantCode$/, /merchant code \(Ds_Merchant_MerchantCode\) is missing/],
  SIS0009: [/formato en Ds_Merchant_MerchantCode/, /format error in the merchant code/],
  SIS0010: [/falta Ds_Merchant_Terminal/, /terminal \(Ds_Merchant_Terminal\) is missing/],
  SIS0011: [/formato en Ds_Merchant_Terminal/, /format error in the terminal/],
  SIS0015: [/^Falta Ds_Merchant_Currency$/, /currency \(Ds_Merchant_Currency\) is missing/],
  SIS0016: [/formato en Ds_Merchant_Currency/, /format error in the currency/],
  SIS0018: [/^Falta Ds_Merchant_Amount$/, /amount \(Ds_Merchant_Amount\) is missing/],
  SIS0022: [/formato en Ds_Merchant_TransactionType/, /format error in the transaction type/],
  SIS0023: [/Ds_Merchant_TransactionType desconocido/, /unknown transaction type/],
  SIS0026: [/No existe el comercio \/ terminal enviado/, /unknown merchant code \(FUC\) or terminal/],
  SIS0027: [/Moneda enviada por el comercio/, /currency does not match the terminal/],
  SIS0028: [/está dado de baja/, /deactivated/],
  SIS0040: [/no tiene ningún método de pago asignado/, /no payment method/],
  SIS0041: [/Error en el cálculo de la firma/, /signature error/],
  SIS0042: [/Error en el cálculo de la firma/, /signature error/],
  SIS0051: [/^Número de pedido repetido$/, /^duplicate order number$/],
  SIS0054: [/No existe operación sobre la que realizar la devolución/, /no payment to refund/],
  SIS0055: [/más de un pago con el mismo número de pedido/, /more than one payment under this order number/],
  SIS0056: [/desea devolver no está autorizada/, /payment to refund is not authorized/],
  SIS0057: [/importe a devolver supera el permitido/, /refund exceeds/],
  SIS0059: [/No existe operación sobre la que realizar la confirmación/, /no pre-authorization to confirm/],
  SIS0060: [/Ya existe una confirmación asociada a la preautorización/, /already confirmed/],
  SIS0061: [/desea confirmar no está autorizada/, /pre-authorization to confirm is not authorized/],
  SIS0062: [/importe a confirmar supera el permitido/, /confirmation exceeds/],
  SIS0063: [/Número de tarjeta no valido/, /invalid card number/],
  SIS0064: [/Número de posiciones de la tarjeta incorrecto/, /wrong card number length/],
  SIS0065: [/número de tarjeta no es numérico/, /not numeric/],
  SIS0066: [/mes de caducidad/, /expiry month/],
  SIS0069: [/Año de caducidad no valido/, /expiry year/],
  SIS0071: [/^Tarjeta caducada$/, /^expired card$/],
  SIS0072: [/^Operación no anulable$/, /cannot be cancelled/],
  SIS0074: [/Falta Ds_Merchant_Order/, /order number \(Ds_Merchant_Order\) is missing/],
  SIS0075: [/menos de 4 o más de 12 posiciones/, /fewer than 4 or more than 12 characters/],
  SIS0078: [/Tipo de operación no permitida para esa tarjeta/, /operation not allowed for this card/],
  SIS0081: [/datos de la sesión/, /session data were lost/],
  SIS0093: [/^Denegación emisor$/, /^declined by the issuer$/],
  SIS0094: [/^Denegación emisor$/, /^declined by the issuer$/],
  SIS0218: [/solo permite operaciones seguras y se está mandando una operación\s+NO SEGURA por entradas Host to Host/, /only allows secure operations and a non-secure operation was sent host to host/],
  SIS0222: [/Ya existe una anulación asociada a la preautorización/, /already cancelled/],
  SIS0223: [/La preautorización que se desea anular no está autorizada/, /pre-authorization to cancel is not authorized/],
  SIS0225: [/No existe operación sobre la que realizar la anulación/, /no operation to cancel/],
  SIS0252: [/no puede enviar la tarjeta/, /does not allow sending the card/],
  SIS0253: [/no cumple check digit/, /check digit/],
  SIS0256: [/El comercio no permite operativa de preautorizacion/, /merchant cannot do pre-authorizations/],
  SIS0257: [/La tarjeta no permite operativa de preautorizacion/, /card does not allow pre-authorizations/],
  SIS0261: [/^Restricciones superadas$/, /restriction limits/],
  SIS0274: [/Tipo de operación desconocida o no permitida/, /unknown or unaccepted type of operation/],
  SIS0292: [/^Bloqueo por control de Seguridad$/, /blocked by Redsys's security controls/],
  SIS0429: [/Error en la versión\s+\(Ds_SignatureVersion\)/, /signature version error/],
  SIS0430: [/Error al decodificar el parámetro Ds_MerchantParameters/, /could not be decoded/],
  SIS0431: [/Error del objeto JSON/, /JSON object in Ds_MerchantParameters is not correct/],
  SIS0432: [/FUC del comercio erróneo/, /wrong merchant code \(FUC\)/],
  SIS0493: [/parametros de MPI en operacion no segura/, /MPI\) data in a non-secure operation/],
  SIS0571: [/protocolVersion no indicado/, /protocolVersion is missing/],
  SIS0573: [/browserAcceptHeader no indicado/, /browserAcceptHeader is missing/],
  SIS0574: [/browserUserAgent no indicado/, /browserUserAgent is missing/],
  SIS0575: [/browserJavaEnabled no indicado/, /browserJavaEnabled is missing/],
  SIS0576: [/browserLanguage no indicado/, /browserLanguage is missing/],
  SIS0577: [/browserColorDepth no indicado/, /browserColorDepth is missing/],
  SIS0578: [/browserScreenHeight no indicado/, /browserScreenHeight is missing/],
  SIS0579: [/browserScreenWidth no indicado/, /browserScreenWidth is missing/],
  SIS0580: [/browserTZ no indicado/, /browserTZ is missing/],
  SIS0581: [/datos DS_MERCHANT_EMV3DS no está indicado o es demasiado grande/, /DS_MERCHANT_EMV3DS data are missing or not readable/],
  SIS0582: [/threeDSServerTransID no indicado/, /threeDSServerTransID is missing/],
  SIS0583: [/threeDSCompInd no indicado/, /threeDSCompInd is missing/],
  SIS0584: [/notificationURL no indicado/, /notificationURL is missing/],
  SIS0605: [/Error en el parámetro DS_MERCHANT_MPIEXTERNAL/, /external 3-D Secure data \(DS_MERCHANT_MPIEXTERNAL\)/],
  SIS0606: [/Error en los datos de MPI enviados en el parámetro DS_MERCHANT_MPIEXTERNAL/, /MPI data of DS_MERCHANT_MPIEXTERNAL/],
  SIS0607: [/parámetro TXID de MPI/, /wrong TXID/],
  SIS0608: [/parámetro CAVV de MPI/, /wrong CAVV/],
  SIS0609: [/parámetro ECI de MPI/, /wrong ECI/],
  SIS0610: [/parámetro threeDSServerTransID de MPI/, /wrong threeDSServerTransID/],
  SIS0611: [/parámetro dsTransID de MPI/, /wrong dsTransID/],
  SIS0612: [/parámetro authenticacionValue de MPI/, /wrong authenticacionValue/],
  SIS0613: [/parámetro protocolVersion de MPI/, /wrong protocolVersion/],
  SIS0614: [/parámetro Eci de MPI/, /wrong Eci /],
  SIS0616: [/DS_MERCHANT_EXCEP_SCA tiene un valor erróneo/, /invalid SCA exemption/],
  SIS0617: [/EXCEP_SCA es de tipo MIT y no vienen datos de COF/, /EXCEP_SCA MIT\) needs the stored-credential data/],
  SIS0653: [/browserJavascriptEnabled no indicado/, /browserJavascriptEnabled is missing/],
  SIS0802: [/valor incorrecto en el parémtro DS_MERCHANT_COF_TYPE/, /wrong value of DS_MERCHANT_COF_TYPE/],
};

function checkSource(code: string, published: string | undefined, source: Source): void {
  if (source instanceof RegExp) {
    expect(published, `${code} is in Redsys's table`).toBeDefined();
    expect(published, code).toMatch(source);
  } else {
    // not in Redsys's current table: the meaning is ActiveMerchant's
    expect(published, `${code} is not in Redsys's current table`).toBeUndefined();
    expect(source.activeMerchant.length).toBeGreaterThan(0);
  }
}

describe('the Redsys code table holds Redsys\'s published meanings', () => {
  it('every code of the table is checked here, and every code checked here is in the table', () => {
    expect([...DOCUMENTED_RESPONSE_CODES].sort((a, b) => a - b)).toEqual(Object.keys(RESPONSES).map(Number).sort((a, b) => a - b));
    expect([...DOCUMENTED_SIS_CODES].sort()).toEqual(Object.keys(SIS).sort());
    expect([...IN_PROGRESS_CODES].sort()).toEqual(Object.keys(IN_PROGRESS).map(Number).sort());
  });

  it.each(Object.entries(RESPONSES))('Ds_Response %s', (code, [source, ours]) => {
    const padded = code.padStart(4, '0');
    checkSource(padded, getResponseCodeMessage(Number(code)), source);
    const r = refusalOf(padded);
    expect(r.details).toMatch(new RegExp(`^Redsys ${padded}: `));
    expect(r.details.slice(`Redsys ${padded}: `.length)).toMatch(ours);
    expect(inProgress(padded)).toBeNull();
  });

  it.each(Object.entries(IN_PROGRESS))('Ds_Response %s is an operation in progress', (code, [published, ours]) => {
    expect(getResponseCodeMessage(Number(code))).toMatch(published);
    expect(inProgress(code)).toMatch(ours);
  });

  it.each(Object.entries(SIS))('%s', (code, [published, ours]) => {
    checkSource(code, getSISErrorCodeMessage(code), published);
    const r = refusalOf(code);
    expect(r.details.slice(`Redsys ${code}: `.length)).toMatch(ours);
    // the same error as Ds_Response 9xxx
    const n = `9${code.slice(4)}`;
    if (getResponseCodeMessage(Number(n)) === getSISErrorCodeMessage(code)) expect(refusalOf(n).details.replace(/^Redsys \d{4} \(SIS\d{4}\): /, '')).toMatch(ours);
  });
});
