use super::*;
use archbuild_fatbin::ptx_params::ParamLayout;

/// Lines of the stub cicc 13.5 writes for `k.cu` (an `extern "C"` kernel, two instances of a
/// template, a struct by value).
const STUB: &str = r#"
extern __attribute__((visibility("hidden"))) void __device_stub__Z4vaddPKfS0_Pfj(const float *, const float *, float *, unsigned);
__attribute__((visibility("hidden"))) void __device_stub__Z4vaddPKfS0_Pfj(const float *__par0, const float *__par1, float *__par2, unsigned __par3){__cudaLaunchPrologue(4);__cudaSetupArgSimple(__par0, 0UL);__cudaSetupArgSimple(__par1, 8UL);__cudaSetupArgSimple(__par2, 16UL);__cudaSetupArgSimple(__par3, 24UL);__cudaLaunch(((char *)((void ( *)(const float *, const float *, float *, unsigned))vadd)));}
static void __device_stub__Z4fillIdEvPT_S0_m( double *__par0,  double __par1,  size_t __par2) {  __cudaLaunchPrologue(3); __cudaSetupArgSimple(__par0, 0UL); __cudaSetupArgSimple(__par1, 8UL); __cudaSetupArgSimple(__par2, 16UL); __cudaLaunch(((char *)((void ( *)(double *, double, size_t))fill<double> ))); }
static void __device_stub__Z4fillI6__halfEvPT_S1_m( struct __half *__par0,  struct __half&__par1,  size_t __par2) {  __cudaLaunchPrologue(3); __cudaSetupArgSimple(__par0, 0UL); __cudaSetupArg(__par1, 8UL); __cudaSetupArgSimple(__par2, 16UL); __cudaLaunch(((char *)((void ( *)(struct __half *, struct __half, size_t))fill<    ::__half> ))); }
__attribute__((visibility("hidden"))) void __device_stub__Z2st1Pbay( struct P&__par0,  bool __par1,  signed char __par2,  unsigned long long __par3) {  __cudaLaunchPrologue(4); __cudaSetupArg(__par0, 0UL); __cudaSetupArgSimple(__par1, 8UL); __cudaSetupArgSimple(__par2, 9UL); __cudaSetupArgSimple(__par3, 16UL); __cudaLaunch(((char *)((void ( *)(struct P, bool, signed char, unsigned long long))st))); }
__attribute__((visibility("hidden"))) void __device_stub__Z13restrict_copyPKfPfi( const float *__restrict__ __par0,  float *__restrict__ __par1,  int __par2) {  const float *__T5;
float *__T6;
__cudaLaunchPrologue(3); __T5 = __par0; __cudaSetupArgSimple(__T5, 0UL); __T6 = __par1; __cudaSetupArgSimple(__T6, 8UL); __cudaSetupArgSimple(__par2, 16UL); __cudaLaunch(((char *)((void ( *)(const float *__restrict__, float *__restrict__, int))restrict_copy))); }
"#;

fn entries() -> Vec<String> {
    [
        "vadd",
        "_Z4fillIdEvPT_S0_m",
        "_Z4fillI6__halfEvPT_S1_m",
        "st",
        "restrict_copy",
    ]
    .map(String::from)
    .to_vec()
}

fn layout(ty: &str, size: u32, align: u32) -> ParamLayout {
    ParamLayout {
        ty: ty.into(),
        size,
        align,
    }
}

fn arch(major: u32, minor: u32) -> Arch {
    Arch::plain(major, minor)
}

#[test]
fn extern_c_and_template_kernels_get_their_c_types_from_the_stub() {
    let d = from_stub(STUB.as_bytes(), &entries());
    let shown: Vec<&str> = d.iter().map(|d| d.shown.as_str()).collect();
    assert_eq!(
        shown,
        [
            "vadd(float const*, float const*, float*, unsigned int)",
            "fill<double>(double*, double, unsigned long)",
            "fill<__half>(__half*, __half, unsigned long)",
            "st(P, bool, signed char, unsigned long long)",
            // A definition over several lines (a `__restrict__` parameter).
            "restrict_copy(float const*, float*, int)",
        ]
    );
    assert_eq!(d[0].entry, "vadd");
    assert_eq!(d[1].entry, "_Z4fillIdEvPT_S0_m");
    let rust: Vec<Option<RustParam>> = d[0].params.iter().map(|p| p.rust).collect();
    use RustParam::*;
    assert_eq!(
        rust,
        [
            Some(In(Scalar::F32)),
            Some(In(Scalar::F32)),
            Some(Out(Scalar::F32)),
            Some(Value(Scalar::U32))
        ]
    );
    assert_eq!(d[2].params[0].rust, Some(Out(Scalar::Half)));
    assert_eq!(d[2].params[1].rust, Some(Value(Scalar::Half)));
    assert_eq!(d[0].unmapped(), None);
    assert_eq!(
        d[3].unmapped().unwrap(),
        "parameter 0 is `P`, a type passed by value that is not a scalar (a struct or a vector \
         type)"
    );
    // A kernel compiled out of this image is not declared for it.
    let only = from_stub(STUB.as_bytes(), &["vadd".to_owned()]);
    assert_eq!(only.len(), 1);
}

#[test]
fn pointers_to_pointers_functions_and_volatile_do_not_map() {
    assert_eq!(map("float**"), None);
    assert_eq!(map("void (*)(int)"), None);
    assert_eq!(map("int volatile*"), None);
    assert_eq!(map("void*"), None);
    assert_eq!(
        map("float const restrict*"),
        Some(RustParam::In(Scalar::F32))
    );
    assert_eq!(map("char const*"), Some(RustParam::In(Scalar::Char)));
    assert_eq!(map("__nv_bfloat16*"), Some(RustParam::Out(Scalar::Bf16)));
    assert_eq!(
        split_declaration("ns::k(void (*)(int), Foo<int, 2>)").unwrap(),
        (
            "ns::k".to_owned(),
            vec!["void (*)(int)".to_owned(), "Foo<int, 2>".to_owned()]
        )
    );
}

fn vadd_ptx() -> EntryParams {
    EntryParams {
        name: "vadd".into(),
        params: vec![
            layout(".u64", 8, 8),
            layout(".u64", 8, 8),
            layout(".u64", 8, 8),
            layout(".u32", 4, 4),
        ],
    }
}

#[test]
fn a_declaration_that_differs_between_archs_names_the_parameter_and_the_images() {
    let d80 = from_stub(STUB.as_bytes(), &["vadd".to_owned()]);
    let mut d90 = d80.clone();
    d90[0].params[3] = Param {
        c: "int".into(),
        rust: Some(RustParam::Value(Scalar::I32)),
    };
    let ok = check("m", &[(arch(8, 0), d80.clone(), vec![vadd_ptx()])]).unwrap();
    assert_eq!(ok, d80);
    let err = check(
        "m",
        &[
            (arch(8, 0), d80.clone(), vec![vadd_ptx()]),
            (arch(8, 6), d80.clone(), vec![vadd_ptx()]),
            (arch(9, 0), d90, vec![vadd_ptx()]),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains(
            "kernel `vadd` of `m` is not declared alike in every image: parameter 3 declared as \
             `unsigned int` in sm_80, sm_86 but `int` in sm_90"
        ),
        "{err}"
    );
}

#[test]
fn a_declaration_that_differs_from_the_entry_is_refused() {
    let d = from_stub(STUB.as_bytes(), &["vadd".to_owned()]);
    let mut wide = vadd_ptx();
    wide.params[3] = layout(".u64", 8, 8);
    let err = check("m", &[(arch(8, 6), d.clone(), vec![wide])])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "parameter 3 declared as `unsigned int` (4 bytes, align 4) but `.u64` (8 bytes, \
             align 8) in the `.entry` of sm_86"
        ),
        "{err}"
    );
    let mut short = vadd_ptx();
    short.params.pop();
    let err = check("m", &[(arch(8, 6), d, vec![short])])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("4 parameter(s) in its declaration `vadd(float const*, float const*, float*, unsigned int)` but 3 in the `.entry` of sm_86"),
        "{err}"
    );
}
