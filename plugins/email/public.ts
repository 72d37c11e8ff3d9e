/** What other plugins (the shared inbox) may use of email: the sending pipeline and inbound addresses. */
export { sendEmail, checkAddress, type SendExtras } from './send';
export { recordReport } from './reports';
export { parseInboundAddress, threadAddress, storeInboxAddress, type InboundAddress } from './links';
export { SendInput, Message } from './schemas';
