/**
 * JSON-RPC 2.0 messages: types, parsing and classification, and the error classes with their codes.
 *
 * @module mcpwire/jsonrpc
 */
export {
  type ClassifyFailure,
  type ClassifyResult,
  type ClassifySuccess,
  classify,
  errorResponseFor,
  isJsonRpcId,
  parseMessage,
} from "./classify.js";
export {
  ErrorCode,
  type ErrorCodeValue,
  HeaderMismatchError,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  JsonRpcError,
  LocalError,
  type LocalErrorKind,
  MethodNotFoundError,
  MissingRequiredClientCapabilityError,
  ParseError,
  UnsupportedProtocolVersionError,
} from "./errors.js";
export {
  isErrorResponse,
  isNotification,
  isRequest,
  isResponse,
  type JsonObject,
  type JsonRpcErrorObject,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcMessageKind,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcResultResponse,
  kindOf,
} from "./types.js";
