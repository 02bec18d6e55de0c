use alloc::string::String;
use alloc::string::ToString;
use alloc::vec::Vec;

#[cfg(target_has_atomic = "ptr")]
use alloc::sync::Arc;
// `alloc::sync` needs atomic CAS. A target without it has no threads to share a snapshot
// across, so neither the atomic pointer nor the `Send + Sync` bound on [`DataFn`] is
// needed there, and both are dropped below.
#[cfg(not(target_has_atomic = "ptr"))]
use alloc::rc::Rc as Arc;
use burn_core::module::ParamId;
use burn_core::tensor::quantization::quantized_data_len;
use burn_core::tensor::{Bool, DType, Int, Shape, Tensor, TensorData};

/// Lazily produces a [`TensorSnapshot`]'s data, shared so that cloning a snapshot is cheap.
///
/// Build one with [`TensorSnapshot::data_fn`] rather than naming the pointer type, which
/// varies with the target's atomic support.
///
/// The closure is `Send + Sync` on targets with threads, so a snapshot can back a deferred
/// `burn_pack::Tensor`, whose provider must be `Send`: records holding one cross threads
/// through burn-train's async checkpointer. A target without atomic CAS has no threads and no
/// `alloc::sync`, so neither bound applies or can be met there.
#[cfg(target_has_atomic = "ptr")]
pub type DataFn = Arc<dyn Fn() -> Result<TensorData, TensorSnapshotError> + Send + Sync>;
#[cfg(not(target_has_atomic = "ptr"))]
pub type DataFn = Arc<dyn Fn() -> Result<TensorData, TensorSnapshotError>>;

/// Error type for TensorSnapshot operations
#[derive(Debug, Clone)]
pub enum TensorSnapshotError {
    /// I/O error occurred while loading tensor data
    IoError(String),
    /// Data corruption or invalid format
    DataError(String),
    /// Panic occurred while loading tensor data
    PanicError(String),
}

impl core::fmt::Display for TensorSnapshotError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::IoError(e) => write!(f, "I/O error: {}", e),
            Self::DataError(e) => write!(f, "Data error: {}", e),
            Self::PanicError(e) => write!(f, "Panic error: {}", e),
        }
    }
}

impl core::error::Error for TensorSnapshotError {}

/// A lightweight snapshot of a tensor that can lazily produce TensorData.
///
/// TensorSnapshot stores a cloned tensor internally (which is cheap due to reference counting)
/// and only materializes the actual data when `to_data()` is called. This allows
/// efficient inspection of module structure without the overhead of copying all tensor data.
///
/// The dtype and shape are cached for efficient access without requiring data materialization,
/// which is particularly useful for serialization formats that need metadata upfront.
pub struct TensorSnapshot {
    /// Produces the tensor data when needed. Shared, so cloning a snapshot is cheap.
    data_fn: DataFn,
    /// Data type of the tensor (cached for efficient access)
    pub dtype: DType,
    /// Shape of the tensor (cached for efficient access)
    pub shape: Shape,
    /// Path stack representing the module hierarchy
    pub path_stack: Option<Vec<String>>,
    /// Container stack representing the container types at each level
    pub container_stack: Option<Vec<String>>,
    /// Unique identifier for the tensor parameter
    pub tensor_id: Option<ParamId>,
}

impl TensorSnapshot {
    /// Create a new tensor snapshot from a float tensor
    pub fn from_float<const D: usize>(
        tensor: &Tensor<D>,
        path_stack: Vec<String>,
        container_stack: Vec<String>,
        tensor_id: ParamId,
    ) -> Self {
        let dtype = tensor.dtype();
        let shape = tensor.shape();
        let tensor = tensor.clone(); // Clone is cheap (reference counted)
        Self {
            data_fn: Arc::new(move || Ok(tensor.to_data())),
            dtype,
            shape,
            path_stack: Some(path_stack),
            container_stack: Some(container_stack),
            tensor_id: Some(tensor_id),
        }
    }

    /// Create a new tensor snapshot from an int tensor
    pub fn from_int<const D: usize>(
        tensor: &Tensor<D, Int>,
        path_stack: Vec<String>,
        container_stack: Vec<String>,
        tensor_id: ParamId,
    ) -> Self {
        let dtype = tensor.dtype();
        let shape = tensor.shape();
        let tensor = tensor.clone(); // Clone is cheap (reference counted)
        Self {
            data_fn: Arc::new(move || Ok(tensor.to_data())),
            dtype,
            shape,
            path_stack: Some(path_stack),
            container_stack: Some(container_stack),
            tensor_id: Some(tensor_id),
        }
    }

    /// Create a new tensor snapshot from a bool tensor
    pub fn from_bool<const D: usize>(
        tensor: &Tensor<D, Bool>,
        path_stack: Vec<String>,
        container_stack: Vec<String>,
        tensor_id: ParamId,
    ) -> Self {
        let dtype = tensor.dtype();
        let shape = tensor.shape();
        let tensor = tensor.clone(); // Clone is cheap (reference counted)
        Self {
            data_fn: Arc::new(move || Ok(tensor.to_data())),
            dtype,
            shape,
            path_stack: Some(path_stack),
            container_stack: Some(container_stack),
            tensor_id: Some(tensor_id),
        }
    }

    /// Convert to TensorData (this is where actual data copy happens)
    #[cfg(feature = "std")]
    pub fn to_data(&self) -> Result<TensorData, TensorSnapshotError> {
        // Use AssertUnwindSafe: the shared `data_fn` pointer is not UnwindSafe
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (self.data_fn)())).unwrap_or_else(
            |_| {
                Err(TensorSnapshotError::PanicError(
                    "Panic occurred while loading tensor data".to_string(),
                ))
            },
        )
    }

    /// Convert to TensorData (this is where actual data copy happens)
    #[cfg(not(feature = "std"))]
    pub fn to_data(&self) -> Result<TensorData, TensorSnapshotError> {
        (self.data_fn)() // Can't catch panics in no-std, do it when core::panic::AssertUnwindSafe is available
    }

    /// Get the full path by joining the path stack
    pub fn full_path(&self) -> String {
        self.path_stack
            .as_ref()
            .map(|stack| stack.join("."))
            .unwrap_or_default()
    }

    /// Get the full container path by joining the container stack
    pub fn container_path(&self) -> String {
        self.container_stack
            .as_ref()
            .map(|stack| stack.join("."))
            .unwrap_or_default()
    }

    /// Get the module type (last Struct/Enum in the hierarchy)
    ///
    /// Returns the last user-defined module type, skipping primitive containers
    /// like "Vec", "Array". This is useful for determining which user-defined
    /// module a tensor belongs to.
    ///
    /// # Examples
    /// - `Linear.weight` → `Some("Struct:Linear")`
    /// - `Vec<Linear>[0].weight` → `Some("Struct:Linear")`
    /// - `Linear.bias` (Optional) → `Some("Struct:Linear")`
    /// - `Vec<Param>[0]` (no module) → `None`
    pub fn module_type(&self) -> Option<String> {
        self.container_stack.as_ref().and_then(|stack| {
            // Find the last user-defined type (Struct: or Enum:)
            stack
                .iter()
                .rev()
                .find(|ct| ct.starts_with("Struct:") || ct.starts_with("Enum:"))
                .cloned()
        })
    }

    /// Get the immediate container type (last in the container stack)
    ///
    /// Returns the last element in the container stack, which could be a
    /// user-defined type ("Struct:", "Enum:") or a collection type ("Vec", "Array").
    /// This is useful for understanding the full container hierarchy.
    ///
    /// # Examples
    /// - `Linear.weight` → `"Struct:Linear"`
    /// - `Vec<Linear>[0].weight` → `"Struct:Linear"` (the Linear, not the Vec)
    /// - `Vec<Param>[0]` → `"Vec"`
    pub fn container_type(&self) -> String {
        self.container_stack
            .as_ref()
            .and_then(|stack| stack.last())
            .cloned()
            .unwrap_or_else(|| "Unknown".to_string())
    }

    /// Create a TensorSnapshot from a closure that produces TensorData
    /// This is used internally for lazy loading
    pub fn from_closure(
        data_fn: DataFn,
        dtype: DType,
        shape: Shape,
        path_stack: Vec<String>,
        container_stack: Vec<String>,
        tensor_id: ParamId,
    ) -> Self {
        Self {
            data_fn,
            dtype,
            shape,
            path_stack: Some(path_stack),
            container_stack: Some(container_stack),
            tensor_id: Some(tensor_id),
        }
    }

    /// Create a TensorSnapshot from TensorData directly
    pub fn from_data(
        data: TensorData,
        path_stack: Vec<String>,
        container_stack: Vec<String>,
        tensor_id: ParamId,
    ) -> Self {
        let dtype = data.dtype;
        let shape = data.shape.clone();
        Self {
            data_fn: Arc::new(move || Ok(data.clone())),
            dtype,
            shape,
            path_stack: Some(path_stack),
            container_stack: Some(container_stack),
            tensor_id: Some(tensor_id),
        }
    }

    /// Get the size of the tensor data in bytes without materializing it.
    ///
    /// For regular (non-quantized) types, this is simply `shape.product() * dtype.size()`.
    ///
    /// For quantized types (`QFloat`), this accounts for:
    /// - The quantized values (packed according to the quantization scheme)
    /// - Quantization parameters (scale values appended to the data), including the per-tensor
    ///   scale of a two-level scheme
    pub fn data_len(&self) -> usize {
        match self.dtype {
            DType::QFloat(scheme) => quantized_data_len(&scheme, &self.shape),
            _ => self.shape.iter().product::<usize>() * self.dtype.size(),
        }
    }

    /// Clone the data function for lazy composition
    pub fn clone_data_fn(&self) -> DataFn {
        self.data_fn.clone()
    }

    /// Wrap a closure into the shared form [`from_closure`](Self::from_closure) takes.
    ///
    /// Use this rather than constructing the pointer directly: [`DataFn`] is `Arc`-based only
    /// on targets with atomic CAS, and `Rc`-based elsewhere.
    #[cfg(target_has_atomic = "ptr")]
    pub fn data_fn(
        f: impl Fn() -> Result<TensorData, TensorSnapshotError> + Send + Sync + 'static,
    ) -> DataFn {
        Arc::new(f)
    }

    /// Wrap a closure into the shared form [`from_closure`](Self::from_closure) takes.
    ///
    /// See the `target_has_atomic = "ptr"` variant. This one drops the `Send + Sync` bound,
    /// which nothing on a single-threaded target can satisfy or needs.
    #[cfg(not(target_has_atomic = "ptr"))]
    pub fn data_fn(f: impl Fn() -> Result<TensorData, TensorSnapshotError> + 'static) -> DataFn {
        Arc::new(f)
    }
}

impl Clone for TensorSnapshot {
    fn clone(&self) -> Self {
        // Clone lazily - keep the same data function
        Self {
            data_fn: self.data_fn.clone(),
            dtype: self.dtype,
            shape: self.shape.clone(),
            path_stack: self.path_stack.clone(),
            container_stack: self.container_stack.clone(),
            tensor_id: self.tensor_id,
        }
    }
}

impl core::fmt::Debug for TensorSnapshot {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TensorSnapshot")
            .field("dtype", &self.dtype)
            .field("shape", &self.shape)
            .field("path_stack", &self.path_stack)
            .field("container_stack", &self.container_stack)
            .field("tensor_id", &self.tensor_id)
            .finish()
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use burn_core::tensor::quantization::{QuantScheme, QuantValue};
    use burn_core::tensor::{BoolStore, Device, Distribution, shape};

    #[test]
    fn tensor_view_float() {
        let device = Default::default();
        let tensor = Tensor::<2>::from_data([[1.0, 2.0], [3.0, 4.0]], &device);

        let snapshot = TensorSnapshot::from_float(
            &tensor,
            vec!["test".to_string(), "weight".to_string()],
            vec!["TestModule".to_string(), "Param".to_string()],
            ParamId::new(),
        );

        // Test metadata access without materialization
        assert_eq!(snapshot.dtype, DType::F32);
        assert_eq!(snapshot.shape, shape![2, 2]);
        assert_eq!(snapshot.full_path(), "test.weight");
        assert_eq!(snapshot.container_path(), "TestModule.Param");

        // Test data materialization
        let data = snapshot.to_data().unwrap();
        assert_eq!(data.shape, shape![2, 2]);
        assert_eq!(data.dtype, DType::F32);
    }

    #[test]
    fn tensor_view_int() {
        let device = Default::default();
        let tensor = Tensor::<2, Int>::from_data([[1, 2], [3, 4]], &device);

        let snapshot = TensorSnapshot::from_int(
            &tensor,
            vec!["test".to_string(), "int".to_string()],
            vec!["TestModule".to_string(), "Param".to_string()],
            ParamId::new(),
        );

        // Test metadata access without materialization
        let dtype: DType = device.settings().int_dtype.into();
        assert_eq!(snapshot.dtype, dtype);
        assert_eq!(snapshot.shape, shape![2, 2]);

        let data = snapshot.to_data().unwrap();
        assert_eq!(data.shape, shape![2, 2]);
        assert_eq!(data.dtype, dtype);
    }

    #[test]
    fn tensor_view_bool() {
        let device = Default::default();
        let tensor = Tensor::<2, Bool>::from_data([[true, false], [false, true]], &device);

        let snapshot = TensorSnapshot::from_bool(
            &tensor,
            vec!["test".to_string(), "bool".to_string()],
            vec!["TestModule".to_string(), "Param".to_string()],
            ParamId::new(),
        );

        // Test metadata access without materialization
        assert_eq!(snapshot.dtype, DType::Bool(BoolStore::Native));
        assert_eq!(snapshot.shape, shape![2, 2]);

        let data = snapshot.to_data().unwrap();
        assert_eq!(data.shape, shape![2, 2]);
        assert_eq!(data.dtype, DType::Bool(BoolStore::Native));
    }

    /// `data_len` predicts the serialized size without materializing the tensor, and a mismatch
    /// with what `TensorData::quantized` writes silently truncates or over-reserves on save.
    #[test]
    fn data_len_matches_quantized_bytes() {
        use burn_core::tensor::quantization::{QuantScheme, QuantStore, QuantValue, ScaleDtype};

        let base = QuantScheme::default()
            .with_value(QuantValue::Q8S)
            .with_store(QuantStore::Native);

        // 8 values in blocks of 4 lands on `QPARAM_ALIGN`, which would hide a padding assumption;
        // 6 in blocks of 3 and 10 in blocks of 5 do not.
        for (values, block) in [(8usize, 4usize), (6, 3), (10, 5)] {
            let scales = vec![0.5f32; values / block];
            let one_level = base.per_block([block as u8], ScaleDtype::UE4M3);
            let two_level = base
                .per_block([block as u8], ScaleDtype::UE4M3)
                .per_tensor(ScaleDtype::F32);

            for (scheme, global) in [(one_level, None), (two_level, Some(3.0f32))] {
                let data =
                    TensorData::quantized(vec![0i8; values], [values], scheme, &scales, global);
                let snapshot =
                    TensorSnapshot::from_data(data.clone(), vec![], vec![], ParamId::new());

                assert_eq!(
                    snapshot.data_len(),
                    data.bytes.len(),
                    "predicted size disagrees with the written bytes for {values} values \
                     in blocks of {block}, {scheme:?}"
                );
            }
        }
    }

    #[test]
    fn data_len() {
        let device = Device::default();
        let settings = device.settings();

        // Test F32 tensor (4 bytes per element)
        let tensor_f32 = Tensor::<2>::from_data([[1.0, 2.0], [3.0, 4.0]], &device);
        let view_f32 = TensorSnapshot::from_float(
            &tensor_f32,
            vec!["test".to_string()],
            vec!["Module".to_string()],
            ParamId::new(),
        );
        let dtype: DType = settings.float_dtype.into();
        assert_eq!(view_f32.data_len(), 4 * dtype.size()); // 4 elements * 4 bytes

        // Test int tensor
        let tensor_i64 = Tensor::<3, Int>::from_data([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], &device);
        let view_i64 = TensorSnapshot::from_int(
            &tensor_i64,
            vec!["test".to_string()],
            vec!["Module".to_string()],
            ParamId::new(),
        );
        let dtype: DType = settings.int_dtype.into();
        assert_eq!(view_i64.data_len(), 8 * dtype.size()); // 8 elements * 8 bytes (I64)

        // Test Bool tensor (1 byte per element)
        let tensor_bool = Tensor::<2, Bool>::from_data([[true, false], [false, true]], &device);
        let view_bool = TensorSnapshot::from_bool(
            &tensor_bool,
            vec!["test".to_string()],
            vec!["Module".to_string()],
            ParamId::new(),
        );
        let dtype: DType = settings.bool_dtype.into();
        assert_eq!(view_bool.data_len(), 4 * dtype.size()); // 4 elements * 1 byte
    }

    fn assert_data_len_matches(snapshot: TensorSnapshot) {
        let declared = snapshot.data_len();
        let actual = snapshot.to_data().unwrap().bytes.len();
        assert_eq!(
            declared,
            actual,
            "data_len() disagrees with to_data() for {}",
            snapshot.full_path()
        );
    }

    /// `data_len()` is computed from the cached shape and dtype rather than observed, and
    /// callers such as the burnpack writer reserve exactly that many bytes before ever
    /// calling `to_data()`. A disagreement would silently misplace everything written after
    /// this tensor, so pin the two together for every dtype family.
    #[test]
    fn data_len_matches_materialized_bytes() {
        let device = Device::default();

        let floats = Tensor::<2>::from_data([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], &device);
        let ints = Tensor::<2, Int>::from_data([[1, 2], [3, 4]], &device);
        let bools = Tensor::<2, Bool>::from_data([[true, false], [false, true]], &device);

        let path = |name: &str| vec![name.to_string()];
        assert_data_len_matches(TensorSnapshot::from_float(
            &floats,
            path("float"),
            vec![],
            ParamId::new(),
        ));
        assert_data_len_matches(TensorSnapshot::from_int(
            &ints,
            path("int"),
            vec![],
            ParamId::new(),
        ));
        assert_data_len_matches(TensorSnapshot::from_bool(
            &bools,
            path("bool"),
            vec![],
            ParamId::new(),
        ));
    }

    /// Packed quantized storage divides only the packed dimension, so a non-divisible extent
    /// pads once per line rather than once over the flattened tensor. No current backend can
    /// materialize such a tensor, so this pins the formula against the storage shape the
    /// allocation would use (`CubeTensor::quantized_storage`) rather than against `to_data()`.
    ///
    /// Getting this wrong is not cosmetic: a deferred tensor declares its length from
    /// `data_len()` before the writer reserves space, so an under-count makes the save fail.
    #[test]
    fn data_len_packs_per_line_for_packed_stores() {
        let packed = |shape: Shape| {
            // Q4 in u32 words: 8 values per storage element, packed along the last dimension.
            let scheme = QuantScheme::default().with_value(QuantValue::Q4S);
            TensorSnapshot::from_closure(
                Arc::new(|| Err(TensorSnapshotError::DataError("formula-only".to_string()))),
                DType::QFloat(scheme),
                shape,
                vec!["packed".to_string()],
                vec![],
                ParamId::new(),
            )
            .data_len()
        };

        // 3 lines x ceil(3 / 8) = 3 u32 words = 12 value bytes, plus one tensor-level f32
        // scale. Flattening first would say ceil(9 / 8) * 4 = 8.
        assert_eq!(packed(shape![3, 3]), 12 + 4);

        // The same over more than two dimensions: 2 * 5 lines x ceil(9 / 8) = 20 words.
        assert_eq!(packed(shape![2, 5, 9]), 20 * 4 + 4);

        // A divisible extent is unaffected, and agrees with the flattened count.
        assert_eq!(packed(shape![4, 8]), 4 * 4 + 4);
    }

    /// Quantized is the one family where `data_len()` reconstructs the layout instead of
    /// deriving it from an element count, so it is where the two drift apart.
    ///
    /// The shapes and schemes here are chosen to hit the two ways that reconstruction has
    /// been wrong: a value-byte count that is not a multiple of 4 (which a spurious
    /// alignment round-up inflates), and a sub-byte `QuantValue` under `QuantStore::Native`
    /// (whose stored width rounds down to zero bytes if divided rather than div_ceil'd). A
    /// 32x32 Q8 tensor passes either way, so it cannot stand in for these.
    ///
    /// Both axes rely on the test backend storing quantized values natively, one `i8` per
    /// value: `quantize_dynamic` rewrites the scheme's store to `QuantStore::Native` even
    /// though `QuantScheme::default()` starts as `PackedU32`. A backend honoring `PackedU32`
    /// would produce 4-byte-exact value counts and exercise neither axis.
    #[test]
    fn data_len_matches_materialized_bytes_when_quantized() {
        let device = Device::default();

        let schemes = [
            ("q8", QuantScheme::default()),
            ("q4", QuantScheme::default().with_value(QuantValue::Q4S)),
            ("q2", QuantScheme::default().with_value(QuantValue::Q2S)),
        ];
        // Element counts that are and are not multiples of the 4-byte scale alignment.
        let shapes = [shape![32, 32], shape![3, 3], shape![5, 5], shape![2, 3]];

        for (name, scheme) in schemes {
            for shape in &shapes {
                let tensor = Tensor::<2>::random(shape.clone(), Distribution::Default, &device)
                    .quantize_dynamic(&scheme);
                assert_data_len_matches(TensorSnapshot::from_float(
                    &tensor,
                    vec![format!("{name}-{shape:?}")],
                    vec![],
                    ParamId::new(),
                ));
            }
        }
    }

    #[test]
    fn from_closure() {
        let data = TensorData::from([1.0f32, 2.0, 3.0, 4.0]);
        let dtype = data.dtype;
        let shape = data.shape.clone();

        let snapshot = TensorSnapshot::from_closure(
            Arc::new(move || Ok(data.clone())),
            dtype,
            shape.clone(),
            vec!["model".to_string(), "layer".to_string()],
            vec!["Model".to_string(), "Layer".to_string()],
            ParamId::new(),
        );

        // Test metadata access
        assert_eq!(snapshot.dtype, DType::F32);
        assert_eq!(snapshot.shape, shape![4]);
        assert_eq!(snapshot.full_path(), "model.layer");
        assert_eq!(snapshot.data_len(), 16); // 4 * 4 bytes

        // Test data materialization
        let materialized = snapshot.to_data().unwrap();
        assert_eq!(materialized.shape, shape![4]);
    }

    #[test]
    fn from_data() {
        let data = TensorData::from([1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let original_dtype = data.dtype;
        let original_shape = data.shape.clone();

        let snapshot = TensorSnapshot::from_data(
            data,
            vec!["encoder".to_string(), "weight".to_string()],
            vec!["Struct:Encoder".to_string(), "Struct:Dense".to_string()],
            ParamId::new(),
        );

        // Test metadata
        assert_eq!(snapshot.dtype, original_dtype);
        assert_eq!(snapshot.shape, original_shape);
        assert_eq!(snapshot.full_path(), "encoder.weight");
        assert_eq!(snapshot.container_type(), "Struct:Dense");
        assert_eq!(snapshot.data_len(), 24); // 6 * 4 bytes

        // Test data materialization
        let materialized = snapshot.to_data().unwrap();
        assert_eq!(materialized.shape, original_shape);
    }

    /// `data_fn` is an `Arc<dyn Fn + Send + Sync>` rather than an `Rc` so that snapshots can
    /// back a deferred [`burn_pack::Tensor`], whose byte provider must be `Send` because
    /// records containing one cross threads through burn-train's `Checkpoint: Send`.
    /// Reverting the closure to a plain `Rc`, or capturing something like a `Cell`, fails
    /// here.
    #[test]
    #[cfg(target_has_atomic = "ptr")]
    fn snapshot_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<TensorSnapshot>();
    }

    #[test]
    #[cfg(feature = "std")]
    fn panic_catching_in_to_data() {
        use alloc::sync::Arc;

        // Create a TensorSnapshot with a closure that panics
        let snapshot = TensorSnapshot {
            data_fn: Arc::new(|| panic!("Test panic in data_fn")),
            dtype: DType::F32,
            shape: shape![2, 2],
            path_stack: Some(vec!["test".to_string()]),
            container_stack: Some(vec!["Test".to_string()]),
            tensor_id: Some(ParamId::new()),
        };

        // When std is available, to_data should catch the panic and return an error
        let result = snapshot.to_data();
        assert!(result.is_err());

        match result {
            Err(TensorSnapshotError::PanicError(msg)) => {
                assert!(msg.contains("Panic occurred"));
            }
            _ => panic!("Expected PanicError with panic message"),
        }
    }

    #[test]
    fn error_propagation_in_closure() {
        use alloc::sync::Arc;

        // Create a snapshot with a closure that returns an error
        let snapshot = TensorSnapshot::from_closure(
            Arc::new(|| Err(TensorSnapshotError::IoError("Simulated IO error".into()))),
            DType::F32,
            shape![2, 2],
            vec!["error_test".into()],
            vec![],
            ParamId::new(),
        );

        // Should return an error when trying to get data
        let result = snapshot.to_data();
        assert!(result.is_err());
        match result {
            Err(TensorSnapshotError::IoError(msg)) => {
                assert!(msg.contains("Simulated IO error"));
            }
            _ => panic!("Expected IoError"),
        }
    }

    #[test]
    fn container_type_extraction() {
        let device = Default::default();
        let tensor = Tensor::<1>::from_data([1.0, 2.0, 3.0], &device);

        let snapshot = TensorSnapshot::from_float(
            &tensor,
            vec![
                "model".to_string(),
                "layer1".to_string(),
                "weight".to_string(),
            ],
            vec![
                "Struct:Model".to_string(),
                "Struct:Conv2d".to_string(),
                "Struct:Param".to_string(),
            ],
            ParamId::new(),
        );

        assert_eq!(snapshot.container_type(), "Struct:Param");
        assert_eq!(snapshot.module_type(), Some("Struct:Param".to_string()));
        assert_eq!(
            snapshot.container_path(),
            "Struct:Model.Struct:Conv2d.Struct:Param"
        );
        assert_eq!(snapshot.full_path(), "model.layer1.weight");
    }

    #[test]
    fn container_type_vs_module_type() {
        let device = Default::default();
        let tensor = Tensor::<1>::from_data([1.0, 2.0, 3.0], &device);

        // Test case 1: Tensor inside a Vec<Linear>
        // container_stack: ["Struct:Model", "Vec", "Struct:Linear"]
        let snapshot = TensorSnapshot::from_float(
            &tensor,
            vec![
                "model".to_string(),
                "layers".to_string(),
                "0".to_string(),
                "weight".to_string(),
            ],
            vec![
                "Struct:Model".to_string(),
                "Vec".to_string(),
                "Struct:Linear".to_string(),
            ],
            ParamId::new(),
        );

        // container_type() returns the last element (Struct:Linear in this case)
        assert_eq!(snapshot.container_type(), "Struct:Linear");
        // module_type() also returns Some(Struct:Linear) (skipping Vec)
        assert_eq!(snapshot.module_type(), Some("Struct:Linear".to_string()));

        // Test case 2: Tensor that's just in a Vec
        // container_stack: ["Vec"]
        let snapshot2 = TensorSnapshot::from_float(
            &tensor,
            vec!["data".to_string(), "0".to_string()],
            vec!["Vec".to_string()],
            ParamId::new(),
        );

        // container_type() returns Vec
        assert_eq!(snapshot2.container_type(), "Vec");
        // module_type() returns None (no Struct/Enum found)
        assert_eq!(snapshot2.module_type(), None);

        // Test case 3: Nested collections
        // container_stack: ["Struct:Model", "Vec", "Array", "Struct:Linear"]
        let snapshot3 = TensorSnapshot::from_float(
            &tensor,
            vec![
                "model".to_string(),
                "layers".to_string(),
                "0".to_string(),
                "sublayers".to_string(),
                "1".to_string(),
                "weight".to_string(),
            ],
            vec![
                "Struct:Model".to_string(),
                "Vec".to_string(),
                "Array".to_string(),
                "Struct:Linear".to_string(),
            ],
            ParamId::new(),
        );

        // container_type() returns the immediate container
        assert_eq!(snapshot3.container_type(), "Struct:Linear");
        // module_type() returns the last Struct/Enum
        assert_eq!(snapshot3.module_type(), Some("Struct:Linear".to_string()));
    }
}
