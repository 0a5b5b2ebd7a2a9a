// Operators ONNX Runtime registers in the ONNX domain itself (SimplifiedLayerNormalization, which
// its transformer optimizer and GenAI builder write into LLaMA-style graphs). The ONNX checker
// knows no such operator and refuses those models; this registers ORT's schema with libonnx so
// that they load. The Python checker helper (onnx_checker.py) registers the same schema.
#pragma once

namespace ig {

// Idempotent and thread-safe; called before every check and shape inference.
void register_ort_onnx_domain_schemas();

// ORT's QOperator contrib operators (com.microsoft QLinearAdd, QGemm, ...:
// ort_qoperator_schemas.cpp) for their output types and shapes. Idempotent and thread-safe; called
// with the above.
void register_ort_qoperator_schemas();

}  // namespace ig
