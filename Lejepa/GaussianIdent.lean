import Lejepa.GaussianBridge
import Lejepa.Approx

/-!
# Theorems 4.1 and 4.3 with Gaussian integrals, for every polynomial encoder

`Lejepa.Hermite` and `Lejepa.Approx` prove Theorems 4.1 and 4.3 in the Hermite coefficient model,
where the encoder's moments are *defined* by the orthogonality/Mehler formulas. This module
proves that those formulas are the Gaussian integrals of the evaluated encoder
`h = encoderEval c` and restates both theorems with integral hypotheses and conclusions.

Throughout, `γ = gaussianReal 0 1`, `γⁿ = Measure.pi (fun _ : Fin n => γ)`, `σ² = 1 - ρ²`, and the
Ornstein–Uhlenbeck partner of `z` is `z' = ρ z + σ η` with `η ~ γⁿ` independent of `z ~ γⁿ`;
`E[F(z, z')]` is the iterated integral `∫ z, ∫ η, F(z, ρ z + σ η) dγⁿ(η) dγⁿ(z)`.

## What is proved

1. One coordinate (`IsOUConditionalMean`, `exists_isOUConditionalMean`,
   `integral_integral_eval_ou`): for every real polynomial `p` there is a polynomial `r` with
   `∫ p(ρ x + σ y) dγ(y) = r(x)` for all `x`, and `∫ r dγ = ∫ p dγ`; so `z'` has the law of `z`
   on polynomials. Proof: `He_k` has `r = ρᵏ He_k` (conditional Mehler, `Lejepa.Gaussian`);
   the property is linear in `p`, and `p - p_{N+1} He_{N+1}` has degree `≤ N` (`He_{N+1}` is
   monic of degree `N + 1`), so induction on the degree covers every polynomial.
2. `n` coordinates (`exists_integral_prod_eval_ou`, `integral_integral_prod_eval_ou`): the same for
   products `∏_j q_j(z_j)`, through `integral_fintype_prod_eq_prod`.
3. Iterated integrals (`IterIntegrable`): a function of `(z, η)` integrable in `η` for every `z`,
   whose inner integral is integrable in `z`; closed under sums, differences, scalar multiples;
   on such functions the iterated integral is linear. No Fubini theorem is used.
4. The encoder's moments (`iterIntegral_encoderEval_lag`, `iterIntegral_encoderEval_mul_ou`,
   `iterIntegral_align`, `integral_recovery`): `E[h_i(z) h_i(z')] = corr c ρ i + (mean c i)²`,
   `E[h_i(z') h_k(z')] = cov c i k + mean c i · mean c k`,
   `E‖h(z') - h(z)‖² = alignLoss c ρ`, and `E‖h(z) - Q z‖² = recoveryError c Q`.
5. Theorem 4.1 with integrals (`linear_identifiability_gaussian`, with its non-vacuity witness)
   and Theorem 4.3 with integrals (`approximate_identifiability_gaussian`, corrected form, and
   `approximate_identifiability_gaussian_paper_form`).

What is still not covered: encoders that are not polynomials (an `L²` encoder has infinitely many
Hermite coefficients; that needs Hermite completeness in `L²(γ)`, which Mathlib v4.31.0 lacks),
and the joint law of `(z, z')` as a measure on `(Fin n → ℝ) × (Fin n → ℝ)` (the statements here
are iterated integrals, which is what the OU pair means; a Fubini corollary is not stated).
-/

namespace Lejepa.GaussianIdent

open MeasureTheory Polynomial Lejepa.Hermite Lejepa.Gaussian Lejepa.GaussianBridge
open ProbabilityTheory (gaussianReal)

noncomputable section

variable {n : ℕ}

/-! ## One coordinate: every polynomial has an OU conditional mean polynomial -/

/-- `p(a + σ y)` as the evaluation of a composed polynomial. -/
theorem eval_comp_affine (p : ℝ[X]) (a σ y : ℝ) :
    (p.comp (C a + C σ * X)).eval y = p.eval (a + σ * y) := by
  rw [Polynomial.eval_comp, Polynomial.eval_add, Polynomial.eval_mul, Polynomial.eval_C,
    Polynomial.eval_C, Polynomial.eval_X]
  all_goals rfl

/-- `y ↦ p(a + σ y)` is integrable under `gaussianReal 0 1`. -/
theorem integrable_eval_affine (p : ℝ[X]) (a σ : ℝ) :
    Integrable (fun y => p.eval (a + σ * y)) (gaussianReal 0 1) :=
  (integrable_eval_gaussianReal (p.comp (C a + C σ * X))).congr
    (ae_of_all _ fun y => eval_comp_affine p a σ y)

/-- `r` is the Ornstein–Uhlenbeck conditional mean of `p`: `∫ p(ρ x + σ y) dγ(y) = r(x)` for
every `x`, and `r` has the same Gaussian mean as `p`. -/
structure IsOUConditionalMean (ρ σ : ℝ) (p r : ℝ[X]) : Prop where
  inner_eq : ∀ x, ∫ y, p.eval (ρ * x + σ * y) ∂(gaussianReal 0 1) = r.eval x
  mean_eq : ∫ x, r.eval x ∂(gaussianReal 0 1) = ∫ x, p.eval x ∂(gaussianReal 0 1)

theorem IsOUConditionalMean.add {ρ σ : ℝ} {p q r s : ℝ[X]} (hp : IsOUConditionalMean ρ σ p r)
    (hq : IsOUConditionalMean ρ σ q s) : IsOUConditionalMean ρ σ (p + q) (r + s) := by
  refine ⟨fun x => ?_, ?_⟩
  · have hx : ∀ y, (p + q).eval (ρ * x + σ * y) =
        p.eval (ρ * x + σ * y) + q.eval (ρ * x + σ * y) := fun y => Polynomial.eval_add
    calc ∫ y, (p + q).eval (ρ * x + σ * y) ∂(gaussianReal 0 1)
        = ∫ y, (p.eval (ρ * x + σ * y) + q.eval (ρ * x + σ * y)) ∂(gaussianReal 0 1) :=
          integral_congr_ae (ae_of_all _ hx)
      _ = ∫ y, p.eval (ρ * x + σ * y) ∂(gaussianReal 0 1) +
            ∫ y, q.eval (ρ * x + σ * y) ∂(gaussianReal 0 1) :=
          integral_add (integrable_eval_affine p (ρ * x) σ) (integrable_eval_affine q (ρ * x) σ)
      _ = r.eval x + s.eval x := by rw [hp.inner_eq x, hq.inner_eq x]
      _ = (r + s).eval x := Polynomial.eval_add.symm
  · have hr : ∀ x, (r + s).eval x = r.eval x + s.eval x := fun x => Polynomial.eval_add
    have hpq : ∀ x, (p + q).eval x = p.eval x + q.eval x := fun x => Polynomial.eval_add
    calc ∫ x, (r + s).eval x ∂(gaussianReal 0 1)
        = ∫ x, (r.eval x + s.eval x) ∂(gaussianReal 0 1) := integral_congr_ae (ae_of_all _ hr)
      _ = ∫ x, r.eval x ∂(gaussianReal 0 1) + ∫ x, s.eval x ∂(gaussianReal 0 1) :=
          integral_add (integrable_eval_gaussianReal r) (integrable_eval_gaussianReal s)
      _ = ∫ x, p.eval x ∂(gaussianReal 0 1) + ∫ x, q.eval x ∂(gaussianReal 0 1) := by
          rw [hp.mean_eq, hq.mean_eq]
      _ = ∫ x, (p.eval x + q.eval x) ∂(gaussianReal 0 1) :=
          (integral_add (integrable_eval_gaussianReal p) (integrable_eval_gaussianReal q)).symm
      _ = ∫ x, (p + q).eval x ∂(gaussianReal 0 1) :=
          (integral_congr_ae (ae_of_all (gaussianReal 0 1) hpq)).symm

theorem IsOUConditionalMean.C_mul {ρ σ : ℝ} {p r : ℝ[X]} (hp : IsOUConditionalMean ρ σ p r)
    (a : ℝ) : IsOUConditionalMean ρ σ (C a * p) (C a * r) := by
  have hC : ∀ (q : ℝ[X]) (x : ℝ), (C a * q).eval x = a * q.eval x := fun q x => by
    rw [Polynomial.eval_mul, Polynomial.eval_C]
    all_goals rfl
  refine ⟨fun x => ?_, ?_⟩
  · calc ∫ y, (C a * p).eval (ρ * x + σ * y) ∂(gaussianReal 0 1)
        = ∫ y, a * p.eval (ρ * x + σ * y) ∂(gaussianReal 0 1) :=
          integral_congr_ae (ae_of_all _ fun y => hC p (ρ * x + σ * y))
      _ = a * ∫ y, p.eval (ρ * x + σ * y) ∂(gaussianReal 0 1) := integral_const_mul a _
      _ = a * r.eval x := by rw [hp.inner_eq x]
      _ = (C a * r).eval x := (hC r x).symm
  · calc ∫ x, (C a * r).eval x ∂(gaussianReal 0 1)
        = ∫ x, a * r.eval x ∂(gaussianReal 0 1) := integral_congr_ae (ae_of_all _ (hC r))
      _ = a * ∫ x, r.eval x ∂(gaussianReal 0 1) := integral_const_mul a _
      _ = a * ∫ x, p.eval x ∂(gaussianReal 0 1) := by rw [hp.mean_eq]
      _ = ∫ x, a * p.eval x ∂(gaussianReal 0 1) :=
          (integral_const_mul (μ := gaussianReal 0 1) a (fun x => p.eval x)).symm
      _ = ∫ x, (C a * p).eval x ∂(gaussianReal 0 1) :=
          (integral_congr_ae (ae_of_all (gaussianReal 0 1) (hC p))).symm

/-- `He_k` has the OU conditional mean `ρᵏ He_k` (conditional Mehler), and `E[ρᵏ He_k] = E He_k`
(both are `[k = 0]`). -/
theorem isOUConditionalMean_hermiteReal {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (k : ℕ) :
    IsOUConditionalMean ρ σ (hermiteReal k) (C (ρ ^ k) * hermiteReal k) := by
  have hC : ∀ x : ℝ, (C (ρ ^ k) * hermiteReal k).eval x = ρ ^ k * (hermiteReal k).eval x :=
    fun x => by
      rw [Polynomial.eval_mul, Polynomial.eval_C]
      all_goals rfl
  refine ⟨fun x => ?_, ?_⟩
  · rw [integral_hermiteReal_affine_gaussianReal hσ x k, hC x]
  · calc ∫ x, (C (ρ ^ k) * hermiteReal k).eval x ∂(gaussianReal 0 1)
        = ∫ x, ρ ^ k * (hermiteReal k).eval x ∂(gaussianReal 0 1) :=
          integral_congr_ae (ae_of_all _ hC)
      _ = ρ ^ k * ∫ x, (hermiteReal k).eval x ∂(gaussianReal 0 1) := integral_const_mul _ _
      _ = ∫ x, (hermiteReal k).eval x ∂(gaussianReal 0 1) := by
          cases k with
          | zero => rw [pow_zero, one_mul]
          | succ m =>
            rw [integral_gaussianReal_eval, polyMean_hermiteReal_succ, mul_zero]
            all_goals rfl

/-- Coefficients of `He_k` above its degree vanish. -/
theorem coeff_hermiteReal_of_lt {k m : ℕ} (h : k < m) : (hermiteReal k).coeff m = 0 := by
  rw [hermiteReal, Polynomial.coeff_map, Polynomial.coeff_hermite_of_lt h, map_zero]
  all_goals rfl

/-- `He_k` is monic of degree `k`: its coefficient at `k` is `1`. -/
theorem coeff_hermiteReal_self (k : ℕ) : (hermiteReal k).coeff k = 1 := by
  rw [hermiteReal, Polynomial.coeff_map, Polynomial.coeff_hermite_self, map_one]
  all_goals rfl

/-- Removing the top Hermite term lowers the degree: if `natDegree p ≤ N + 1`, then
`p - p_{N+1} He_{N+1}` has degree `≤ N`. -/
theorem natDegree_sub_hermiteReal_le {p : ℝ[X]} {N : ℕ} (hp : p.natDegree ≤ N + 1) :
    (p - C (p.coeff (N + 1)) * hermiteReal (N + 1)).natDegree ≤ N := by
  rw [Polynomial.natDegree_le_iff_coeff_eq_zero]
  intro M hM
  rw [Polynomial.coeff_sub, Polynomial.coeff_C_mul]
  rcases Nat.lt_or_ge (N + 1) M with hlt | hle
  · rw [coeff_hermiteReal_of_lt hlt, mul_zero, sub_zero]
    exact Polynomial.natDegree_le_iff_coeff_eq_zero.mp hp M hlt
  · have hM' : M = N + 1 := by omega
    rw [hM', coeff_hermiteReal_self, mul_one, sub_self]
    all_goals rfl

/-- Every polynomial of degree `≤ N` has an OU conditional mean polynomial (induction on `N`). -/
theorem exists_isOUConditionalMean_of_natDegree_le {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (N : ℕ) :
    ∀ p : ℝ[X], p.natDegree ≤ N → ∃ r, IsOUConditionalMean ρ σ p r := by
  induction N with
  | zero =>
    intro p hp
    have hpC : p = C (p.coeff 0) * hermiteReal 0 := by
      rw [hermiteReal_zero, mul_one]
      exact Polynomial.eq_C_of_natDegree_le_zero hp
    rw [hpC]
    exact ⟨_, (isOUConditionalMean_hermiteReal hσ 0).C_mul (p.coeff 0)⟩
  | succ N ih =>
    intro p hp
    obtain ⟨s, hs⟩ := ih _ (natDegree_sub_hermiteReal_le hp)
    have hpq : p = C (p.coeff (N + 1)) * hermiteReal (N + 1) +
        (p - C (p.coeff (N + 1)) * hermiteReal (N + 1)) := by ring
    rw [hpq]
    exact ⟨_, ((isOUConditionalMean_hermiteReal hσ (N + 1)).C_mul (p.coeff (N + 1))).add hs⟩

/-- **Every polynomial has an OU conditional mean polynomial**: for `σ² = 1 - ρ²` and every real
polynomial `p` there is `r` with `∫ p(ρ x + σ y) dγ(y) = r(x)` for all `x` and
`∫ r dγ = ∫ p dγ`. -/
theorem exists_isOUConditionalMean {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (p : ℝ[X]) :
    ∃ r, IsOUConditionalMean ρ σ p r :=
  exists_isOUConditionalMean_of_natDegree_le hσ p.natDegree p le_rfl

/-- **The OU partner has the law of `z` on polynomials** (one coordinate): for `σ² = 1 - ρ²`,
`∫∫ p(ρ x + σ y) dγ(y) dγ(x) = ∫ p dγ`. -/
theorem integral_integral_eval_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (p : ℝ[X]) :
    ∫ x, (∫ y, p.eval (ρ * x + σ * y) ∂(gaussianReal 0 1)) ∂(gaussianReal 0 1) =
      ∫ x, p.eval x ∂(gaussianReal 0 1) := by
  obtain ⟨r, hr⟩ := exists_isOUConditionalMean hσ p
  calc ∫ x, (∫ y, p.eval (ρ * x + σ * y) ∂(gaussianReal 0 1)) ∂(gaussianReal 0 1)
      = ∫ x, r.eval x ∂(gaussianReal 0 1) := integral_congr_ae (ae_of_all _ hr.inner_eq)
    _ = ∫ x, p.eval x ∂(gaussianReal 0 1) := hr.mean_eq

/-! ## `n` coordinates: products of polynomials -/

/-- `η ↦ ∏_j q_j(ρ z_j + σ η_j)` is integrable under `γⁿ`. -/
theorem integrable_prod_eval_affine (ρ σ : ℝ) (q : Fin n → ℝ[X]) (z : Fin n → ℝ) :
    Integrable (fun η : Fin n → ℝ => ∏ j, (q j).eval (ρ * z j + σ * η j))
      (Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  Integrable.fintype_prod (f := fun j (y : ℝ) => (q j).eval (ρ * z j + σ * y))
    (fun j => integrable_eval_affine (q j) (ρ * z j) σ)

/-- For products, the inner OU integral is again a product of polynomials `∏_j r_j(z_j)`, with
`∏_j E r_j = ∏_j E q_j`. -/
theorem exists_integral_prod_eval_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (q : Fin n → ℝ[X]) :
    ∃ R : Fin n → ℝ[X],
      (∀ z : Fin n → ℝ, ∫ η, ∏ j, (q j).eval (ρ * z j + σ * η j)
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) = ∏ j, (R j).eval (z j)) ∧
        ∏ j, ∫ x, (R j).eval x ∂(gaussianReal 0 1) =
          ∏ j, ∫ x, (q j).eval x ∂(gaussianReal 0 1) := by
  choose R hR using fun j => exists_isOUConditionalMean hσ (q j)
  refine ⟨R, fun z => ?_, Finset.prod_congr rfl fun j _ => (hR j).mean_eq⟩
  calc ∫ η, ∏ j, (q j).eval (ρ * z j + σ * η j) ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∏ j, ∫ y, (q j).eval (ρ * z j + σ * y) ∂(gaussianReal 0 1) :=
        integral_fintype_prod_eq_prod (E := fun _ => ℝ) (μ := fun _ => gaussianReal 0 1)
          (fun j (y : ℝ) => (q j).eval (ρ * z j + σ * y))
    _ = ∏ j, (R j).eval (z j) := Finset.prod_congr rfl fun j _ => (hR j).inner_eq (z j)

/-- **The OU partner has the law of `z` on products of polynomials**: for `σ² = 1 - ρ²`,
`∫∫ ∏_j q_j(ρ z_j + σ η_j) dγⁿ(η) dγⁿ(z) = ∫ ∏_j q_j(z_j) dγⁿ(z)`. -/
theorem integral_integral_prod_eval_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (q : Fin n → ℝ[X]) :
    ∫ z, (∫ η, ∏ j, (q j).eval (ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      ∫ z, ∏ j, (q j).eval (z j) ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) := by
  obtain ⟨R, hR, hRi⟩ := exists_integral_prod_eval_ou hσ q
  calc ∫ z, (∫ η, ∏ j, (q j).eval (ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∫ z, ∏ j, (R j).eval (z j) ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        integral_congr_ae (ae_of_all _ hR)
    _ = ∏ j, ∫ x, (R j).eval x ∂(gaussianReal 0 1) :=
        integral_fintype_prod_eq_prod (E := fun _ => ℝ) (μ := fun _ => gaussianReal 0 1)
          (fun j (x : ℝ) => (R j).eval x)
    _ = ∏ j, ∫ x, (q j).eval x ∂(gaussianReal 0 1) := hRi
    _ = ∫ z, ∏ j, (q j).eval (z j) ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        (integral_fintype_prod_eq_prod (E := fun _ => ℝ) (μ := fun _ => gaussianReal 0 1)
          (fun j (x : ℝ) => (q j).eval x)).symm

/-! ## Iterated integrals over `(z, η)` -/

/-- `F(z, η)` is integrable in `η` under `γⁿ` for every `z`, and its inner integral is integrable
in `z`: what the iterated integral `∫ z, ∫ η, F z η` needs to be linear. -/
structure IterIntegrable (F : (Fin n → ℝ) → (Fin n → ℝ) → ℝ) : Prop where
  integrable_inner : ∀ z, Integrable (fun η => F z η) (Measure.pi fun _ : Fin n => gaussianReal 0 1)
  integrable_outer :
    Integrable (fun z => ∫ η, F z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
      (Measure.pi fun _ : Fin n => gaussianReal 0 1)

theorem IterIntegrable.congr {F G : (Fin n → ℝ) → (Fin n → ℝ) → ℝ} (h : IterIntegrable F)
    (hFG : ∀ z η, F z η = G z η) : IterIntegrable G :=
  ⟨fun z => (h.integrable_inner z).congr (ae_of_all _ (hFG z)),
    h.integrable_outer.congr (ae_of_all _ fun z => integral_congr_ae (ae_of_all _ (hFG z)))⟩

theorem IterIntegrable.add {F G : (Fin n → ℝ) → (Fin n → ℝ) → ℝ} (hF : IterIntegrable F)
    (hG : IterIntegrable G) : IterIntegrable (fun z η => F z η + G z η) :=
  ⟨fun z => (hF.integrable_inner z).fun_add (hG.integrable_inner z),
    (hF.integrable_outer.fun_add hG.integrable_outer).congr
      (ae_of_all _ fun z => (integral_add (hF.integrable_inner z) (hG.integrable_inner z)).symm)⟩

theorem IterIntegrable.sub {F G : (Fin n → ℝ) → (Fin n → ℝ) → ℝ} (hF : IterIntegrable F)
    (hG : IterIntegrable G) : IterIntegrable (fun z η => F z η - G z η) :=
  ⟨fun z => (hF.integrable_inner z).sub' (hG.integrable_inner z),
    (hF.integrable_outer.sub' hG.integrable_outer).congr
      (ae_of_all _ fun z => (integral_sub (hF.integrable_inner z) (hG.integrable_inner z)).symm)⟩

theorem IterIntegrable.const_mul {F : (Fin n → ℝ) → (Fin n → ℝ) → ℝ} (hF : IterIntegrable F)
    (r : ℝ) : IterIntegrable (fun z η => r * F z η) :=
  ⟨fun z => (hF.integrable_inner z).const_mul r,
    (hF.integrable_outer.const_mul r).congr
      (ae_of_all _ fun z => (integral_const_mul (μ := Measure.pi fun _ : Fin n => gaussianReal 0 1)
        r (fun η => F z η)).symm)⟩

theorem IterIntegrable.finsetSum {ι : Type*} (s : Finset ι)
    {F : ι → (Fin n → ℝ) → (Fin n → ℝ) → ℝ} (h : ∀ a ∈ s, IterIntegrable (F a)) :
    IterIntegrable (fun z η => ∑ a ∈ s, F a z η) :=
  ⟨fun z => integrable_finsetSum s (f := fun a η => F a z η)
      (fun a ha => (h a ha).integrable_inner z),
    (integrable_finsetSum s
      (f := fun a z => ∫ η, F a z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
      (fun a ha => (h a ha).integrable_outer)).congr
      (ae_of_all _ fun z => (integral_finsetSum s (f := fun a η => F a z η)
        (fun a ha => (h a ha).integrable_inner z)).symm)⟩

theorem iterIntegral_congr {F G : (Fin n → ℝ) → (Fin n → ℝ) → ℝ} (hFG : ∀ z η, F z η = G z η) :
    ∫ z, (∫ η, F z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      ∫ z, (∫ η, G z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  integral_congr_ae (ae_of_all _ fun z => integral_congr_ae (ae_of_all _ (hFG z)))

theorem iterIntegral_add {F G : (Fin n → ℝ) → (Fin n → ℝ) → ℝ} (hF : IterIntegrable F)
    (hG : IterIntegrable G) :
    ∫ z, (∫ η, F z η + G z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      (∫ z, (∫ η, F z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)) +
      ∫ z, (∫ η, G z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  Eq.trans (integral_congr_ae (ae_of_all (Measure.pi fun _ : Fin n => gaussianReal 0 1) fun z =>
    integral_add (hF.integrable_inner z) (hG.integrable_inner z)))
    (integral_add hF.integrable_outer hG.integrable_outer)

theorem iterIntegral_sub {F G : (Fin n → ℝ) → (Fin n → ℝ) → ℝ} (hF : IterIntegrable F)
    (hG : IterIntegrable G) :
    ∫ z, (∫ η, F z η - G z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      (∫ z, (∫ η, F z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)) -
      ∫ z, (∫ η, G z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  Eq.trans (integral_congr_ae (ae_of_all (Measure.pi fun _ : Fin n => gaussianReal 0 1) fun z =>
    integral_sub (hF.integrable_inner z) (hG.integrable_inner z)))
    (integral_sub hF.integrable_outer hG.integrable_outer)

theorem iterIntegral_const_mul (r : ℝ) (F : (Fin n → ℝ) → (Fin n → ℝ) → ℝ) :
    ∫ z, (∫ η, r * F z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      r * ∫ z, (∫ η, F z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  Eq.trans (integral_congr_ae (ae_of_all (Measure.pi fun _ : Fin n => gaussianReal 0 1) fun z =>
    integral_const_mul (μ := (Measure.pi fun _ : Fin n => gaussianReal 0 1)) r (fun η => F z η)))
    (integral_const_mul (μ := (Measure.pi fun _ : Fin n => gaussianReal 0 1)) r _)

theorem iterIntegral_finsetSum {ι : Type*} (s : Finset ι)
    {F : ι → (Fin n → ℝ) → (Fin n → ℝ) → ℝ} (h : ∀ a ∈ s, IterIntegrable (F a)) :
    ∫ z, (∫ η, ∑ a ∈ s, F a z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      ∑ a ∈ s, ∫ z, (∫ η, F a z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  Eq.trans (integral_congr_ae (ae_of_all (Measure.pi fun _ : Fin n => gaussianReal 0 1) fun z =>
    integral_finsetSum s (f := fun a η => F a z η) (fun a ha => (h a ha).integrable_inner z)))
    (integral_finsetSum s
      (f := fun a z => ∫ η, F a z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
      (fun a ha => (h a ha).integrable_outer))

/-- The integral of a constant under the probability measure `γⁿ`. -/
theorem integral_const_stdGaussian (x : ℝ) :
    ∫ _ : Fin n → ℝ, x ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) = x := by
  simp only [integral_const, probReal_univ, smul_eq_mul, one_mul]

/-- An iterated integral whose integrand does not depend on `η` is the single integral. -/
theorem iterIntegral_const (F : (Fin n → ℝ) → ℝ) :
    ∫ z, (∫ _ : Fin n → ℝ, F z ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      ∫ z, F z ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  integral_congr_ae (ae_of_all _ fun z => integral_const_stdGaussian (F z))

/-- `∑_{β ∈ supp b} (a_α b_β) [α = β] w_β = a_α b_α w_α` (`b_α = 0` off its support). -/
theorem sum_mul_ite_weight (a b : (Fin n →₀ ℕ) →₀ ℝ) (α : Fin n →₀ ℕ)
    (w : (Fin n →₀ ℕ) → ℝ) :
    ∑ β ∈ b.support, a α * b β * (if α = β then w β else 0) = a α * b α * w α := by
  calc ∑ β ∈ b.support, a α * b β * (if α = β then w β else 0)
      = ∑ β ∈ b.support, (if α = β then a α * b β * w β else 0) :=
        Finset.sum_congr rfl fun β _ => by
          rw [mul_ite, mul_zero]
          all_goals rfl
    _ = if α ∈ b.support then a α * b α * w α else 0 :=
        Finset.sum_ite_eq b.support α (fun β => a α * b β * w β)
    _ = a α * b α * w α := by
        by_cases hα : α ∈ b.support
        · rw [if_pos hα]
        · rw [if_neg hα, Finsupp.notMem_support_iff.mp hα, mul_zero, zero_mul]
          all_goals rfl

/-- A double sum `∑_α ∑_β x_α y_β B_{αβ}` of iterated-integrable terms is iterated-integrable. -/
theorem iterIntegrable_sum_sum (x y : (Fin n →₀ ℕ) →₀ ℝ)
    (B : (Fin n →₀ ℕ) → (Fin n →₀ ℕ) → (Fin n → ℝ) → (Fin n → ℝ) → ℝ)
    (hB : ∀ a b, IterIntegrable (B a b)) :
    IterIntegrable (fun z η => ∑ a ∈ x.support, ∑ b ∈ y.support, x a * y b * B a b z η) :=
  IterIntegrable.finsetSum x.support
    (F := fun a z η => ∑ b ∈ y.support, x a * y b * B a b z η)
    (fun a _ => IterIntegrable.finsetSum y.support (F := fun b z η => x a * y b * B a b z η)
      (fun b _ => (hB a b).const_mul (x a * y b)))

/-- **The orthogonality expansion of an iterated integral**: if `E[B_{αβ}] = [α = β] w_β`, then
`E[∑_α ∑_β x_α y_β B_{αβ}] = ∑_{α ∈ supp x} x_α y_α w_α`. -/
theorem iterIntegral_sum_sum (x y : (Fin n →₀ ℕ) →₀ ℝ)
    (B : (Fin n →₀ ℕ) → (Fin n →₀ ℕ) → (Fin n → ℝ) → (Fin n → ℝ) → ℝ)
    (w : (Fin n →₀ ℕ) → ℝ) (hB : ∀ a b, IterIntegrable (B a b))
    (hw : ∀ a b, ∫ z, (∫ η, B a b z η ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) = if a = b then w b else 0) :
    ∫ z, (∫ η, ∑ a ∈ x.support, ∑ b ∈ y.support, x a * y b * B a b z η
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      ∑ a ∈ x.support, x a * y a * w a := by
  calc ∫ z, (∫ η, ∑ a ∈ x.support, ∑ b ∈ y.support, x a * y b * B a b z η
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∑ a ∈ x.support, ∫ z, (∫ η, ∑ b ∈ y.support, x a * y b * B a b z η
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        iterIntegral_finsetSum x.support
          (F := fun a z η => ∑ b ∈ y.support, x a * y b * B a b z η)
          (fun a _ => IterIntegrable.finsetSum y.support
            (F := fun b z η => x a * y b * B a b z η)
            (fun b _ => (hB a b).const_mul (x a * y b)))
    _ = ∑ a ∈ x.support, ∑ b ∈ y.support, ∫ z, (∫ η, x a * y b * B a b z η
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        Finset.sum_congr rfl fun a _ => iterIntegral_finsetSum y.support
          (F := fun b z η => x a * y b * B a b z η)
          (fun b _ => (hB a b).const_mul (x a * y b))
    _ = ∑ a ∈ x.support, ∑ b ∈ y.support, x a * y b * (if a = b then w b else 0) :=
        Finset.sum_congr rfl fun a _ => Finset.sum_congr rfl fun b _ => by
          rw [iterIntegral_const_mul (x a * y b) (B a b), hw a b]
    _ = ∑ a ∈ x.support, x a * y a * w a :=
        Finset.sum_congr rfl fun a _ => sum_mul_ite_weight x y a w

/-! ## The three Hermite bases: `He_α(z) He_β(z)`, `He_α(z) He_β(z')`, `He_α(z') He_β(z')` -/

theorem iterIntegrable_hermiteMulti_mul (a b : Fin n →₀ ℕ) :
    IterIntegrable (fun z (_ : Fin n → ℝ) => hermiteMulti a z * hermiteMulti b z) :=
  ⟨fun z => integrable_const (hermiteMulti a z * hermiteMulti b z),
    (integrable_hermiteMulti_mul a b).congr
      (ae_of_all _ fun z =>
        (integral_const_stdGaussian (hermiteMulti a z * hermiteMulti b z)).symm)⟩

/-- `E[He_α(z) He_β(z)] = [α = β] α!`, as an iterated integral constant in `η`. -/
theorem iterIntegral_hermiteMulti_mul (a b : Fin n →₀ ℕ) :
    ∫ z, (∫ _ : Fin n → ℝ, hermiteMulti a z * hermiteMulti b z
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      if a = b then mfact b else 0 :=
  (iterIntegral_const (fun z => hermiteMulti a z * hermiteMulti b z)).trans
    (integral_hermiteMulti_mul a b)

/-- `η ↦ He_β(ρ z + σ η)` is integrable under `γⁿ`. -/
theorem integrable_hermiteMulti_ou (ρ σ : ℝ) (b : Fin n →₀ ℕ) (z : Fin n → ℝ) :
    Integrable (fun η : Fin n → ℝ => hermiteMulti b (fun j => ρ * z j + σ * η j))
      (Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  Integrable.fintype_prod
    (f := fun j (y : ℝ) => Polynomial.eval (ρ * z j + σ * y) (hermiteR (b j)))
    (fun j => integrable_eval_affine (hermiteR (b j)) (ρ * z j) σ)

/-- Conditional Mehler for the model's products: `∫ He_β(ρ z + σ η) dγⁿ(η) = ρ^|β| He_β(z)`. -/
theorem integral_hermiteMulti_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (b : Fin n →₀ ℕ)
    (z : Fin n → ℝ) :
    ∫ η, hermiteMulti b (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      ρ ^ deg b * hermiteMulti b z := by
  calc ∫ η, hermiteMulti b (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∫ η, hermiteProd (⇑b) (fun j => ρ * z j + σ * η j)
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        integral_congr_ae (ae_of_all _ fun η =>
          hermiteMulti_eq_hermiteProd b (fun j => ρ * z j + σ * η j))
    _ = ∏ j, ρ ^ b j * (hermiteReal (b j)).eval (z j) := integral_hermiteProd_affine hσ (⇑b) z
    _ = (∏ j, ρ ^ b j) * ∏ j, (hermiteReal (b j)).eval (z j) := Finset.prod_mul_distrib
    _ = ρ ^ (∑ j, b j) * ∏ j, (hermiteReal (b j)).eval (z j) :=
        congrArg (fun t : ℝ => t * ∏ j, (hermiteReal (b j)).eval (z j))
          (Finset.prod_pow_eq_pow_sum Finset.univ (⇑b) ρ)
    _ = ρ ^ deg b * hermiteMulti b z := rfl

/-- The inner integral of `He_α(z) He_β(z')`: `ρ^|β| He_α(z) He_β(z)`. -/
theorem integral_hermiteMulti_mul_ou_inner {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (a b : Fin n →₀ ℕ) (z : Fin n → ℝ) :
    ∫ η, hermiteMulti a z * hermiteMulti b (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      ρ ^ deg b * (hermiteMulti a z * hermiteMulti b z) := by
  have h1 : ∫ η, hermiteMulti a z * hermiteMulti b (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      hermiteMulti a z * ∫ η, hermiteMulti b (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
    integral_const_mul (hermiteMulti a z) (fun η => hermiteMulti b (fun j => ρ * z j + σ * η j))
  rw [h1, integral_hermiteMulti_ou hσ]
  ring

theorem iterIntegrable_hermiteMulti_lag {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (a b : Fin n →₀ ℕ) :
    IterIntegrable (fun z η => hermiteMulti a z * hermiteMulti b (fun j => ρ * z j + σ * η j)) :=
  ⟨fun z => (integrable_hermiteMulti_ou ρ σ b z).const_mul (hermiteMulti a z),
    ((integrable_hermiteMulti_mul a b).const_mul (ρ ^ deg b)).congr
      (ae_of_all _ fun z => (integral_hermiteMulti_mul_ou_inner hσ a b z).symm)⟩

/-- Products of polynomials in `z'` are iterated-integrable. -/
theorem iterIntegrable_prod_eval_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (q : Fin n → ℝ[X]) :
    IterIntegrable (fun z η => ∏ j, (q j).eval (ρ * z j + σ * η j)) := by
  obtain ⟨R, hR, -⟩ := exists_integral_prod_eval_ou hσ q
  exact ⟨fun z => integrable_prod_eval_affine ρ σ q z,
    (Integrable.fintype_prod (f := fun j (x : ℝ) => (R j).eval x)
      (fun j => integrable_eval_gaussianReal (R j))).congr
      (ae_of_all _ fun z => (hR z).symm)⟩

theorem iterIntegrable_hermiteMulti_mul_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (a b : Fin n →₀ ℕ) :
    IterIntegrable (fun z η => hermiteMulti a (fun j => ρ * z j + σ * η j) *
      hermiteMulti b (fun j => ρ * z j + σ * η j)) :=
  (iterIntegrable_prod_eval_ou hσ (fun j => hermiteR (a j) * hermiteR (b j))).congr
    (fun z η => prod_eval_mul_eq_hermiteMulti_mul a b (fun j => ρ * z j + σ * η j))

/-- `E[He_α(z') He_β(z')] = [α = β] α!`: the OU partner has the orthogonality of `z`. -/
theorem iterIntegral_hermiteMulti_mul_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (a b : Fin n →₀ ℕ) :
    ∫ z, (∫ η, hermiteMulti a (fun j => ρ * z j + σ * η j) *
        hermiteMulti b (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      if a = b then mfact b else 0 := by
  calc ∫ z, (∫ η, hermiteMulti a (fun j => ρ * z j + σ * η j) *
        hermiteMulti b (fun j => ρ * z j + σ * η j)
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∫ z, (∫ η, ∏ j, (hermiteR (a j) * hermiteR (b j)).eval (ρ * z j + σ * η j)
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        iterIntegral_congr (fun z η =>
          (prod_eval_mul_eq_hermiteMulti_mul a b (fun j => ρ * z j + σ * η j)).symm)
    _ = ∫ z, ∏ j, (hermiteR (a j) * hermiteR (b j)).eval (z j)
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        integral_integral_prod_eval_ou hσ (fun j => hermiteR (a j) * hermiteR (b j))
    _ = ∫ z, hermiteMulti a z * hermiteMulti b z
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        integral_congr_ae (ae_of_all _ (prod_eval_mul_eq_hermiteMulti_mul a b))
    _ = if a = b then mfact b else 0 := integral_hermiteMulti_mul a b

/-! ## The encoder's moments as iterated integrals -/

/-- `h_i(u) h_k(v) = ∑_α ∑_β (c i α c k β) (He_α(u) He_β(v))`. -/
theorem encoderEval_mul_encoderEval (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (u v : Fin n → ℝ)
    (i k : Fin n) :
    encoderEval c u i * encoderEval c v k =
      ∑ α ∈ (c i).support, ∑ β ∈ (c k).support,
        c i α * c k β * (hermiteMulti α u * hermiteMulti β v) := by
  calc encoderEval c u i * encoderEval c v k
      = (∑ α ∈ (c i).support, c i α * hermiteMulti α u) *
          ∑ β ∈ (c k).support, c k β * hermiteMulti β v := rfl
    _ = ∑ α ∈ (c i).support, ∑ β ∈ (c k).support,
          c i α * hermiteMulti α u * (c k β * hermiteMulti β v) :=
        Finset.sum_mul_sum (c i).support (c k).support
          (fun α => c i α * hermiteMulti α u) (fun β => c k β * hermiteMulti β v)
    _ = ∑ α ∈ (c i).support, ∑ β ∈ (c k).support,
          c i α * c k β * (hermiteMulti α u * hermiteMulti β v) :=
        Finset.sum_congr rfl fun α _ => Finset.sum_congr rfl fun β _ =>
          mul_mul_mul_comm (c i α) (hermiteMulti α u) (c k β) (hermiteMulti β v)

/-- `∑_{α ∈ supp a} a_α a_α g_α` splits into the nonzero `α` and `α = 0`. -/
theorem sum_support_mul_self (a : (Fin n →₀ ℕ) →₀ ℝ) (g : (Fin n →₀ ℕ) → ℝ) :
    ∑ α ∈ a.support, a α * a α * g α =
      (∑ α ∈ a.support.filter (fun α => α ≠ 0), a α * a α * g α) + a 0 * a 0 * g 0 := by
  have hsplit : ∀ α : Fin n →₀ ℕ, a α * a α * g α =
      (if α ≠ 0 then a α * a α * g α else 0) + (if α = 0 then a α * a α * g α else 0) := by
    intro α
    by_cases h : α = 0
    · rw [if_neg (show ¬(α ≠ 0) from fun h' => h' h), if_pos h, zero_add]
    · rw [if_pos (show α ≠ 0 from h), if_neg h, add_zero]
  have hzero : (if (0 : Fin n →₀ ℕ) ∈ a.support then a 0 * a 0 * g 0 else 0) =
      a 0 * a 0 * g 0 := by
    by_cases h0 : (0 : Fin n →₀ ℕ) ∈ a.support
    · rw [if_pos h0]
    · rw [if_neg h0, Finsupp.notMem_support_iff.mp h0, zero_mul, zero_mul]
      all_goals rfl
  have hfilter : ∑ α ∈ a.support, (if α ≠ 0 then a α * a α * g α else 0) =
      ∑ α ∈ a.support.filter (fun α => α ≠ 0), a α * a α * g α :=
    (Finset.sum_filter (fun α => α ≠ 0) (fun α => a α * a α * g α)).symm
  have hite : ∑ α ∈ a.support, (if α = 0 then a α * a α * g α else 0) =
      if (0 : Fin n →₀ ℕ) ∈ a.support then a 0 * a 0 * g 0 else 0 :=
    Finset.sum_ite_eq' a.support 0 (fun α => a α * a α * g α)
  calc ∑ α ∈ a.support, a α * a α * g α
      = ∑ α ∈ a.support,
          ((if α ≠ 0 then a α * a α * g α else 0) + (if α = 0 then a α * a α * g α else 0)) :=
        Finset.sum_congr rfl fun α _ => hsplit α
    _ = (∑ α ∈ a.support, (if α ≠ 0 then a α * a α * g α else 0)) +
          ∑ α ∈ a.support, (if α = 0 then a α * a α * g α else 0) :=
        Finset.sum_add_distrib
    _ = (∑ α ∈ a.support.filter (fun α => α ≠ 0), a α * a α * g α) +
          (if (0 : Fin n →₀ ℕ) ∈ a.support then a 0 * a 0 * g 0 else 0) := by
        rw [hfilter, hite]
    _ = (∑ α ∈ a.support.filter (fun α => α ≠ 0), a α * a α * g α) + a 0 * a 0 * g 0 := by
        rw [hzero]

/-- `corr` as a sum over the nonconstant support in product form. -/
theorem corr_eq_sum_filter (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (ρ : ℝ) (i : Fin n) :
    corr c ρ i = ∑ α ∈ (c i).support.filter (fun α => α ≠ 0),
      c i α * c i α * (mfact α * ρ ^ deg α) := by
  unfold corr ncSupport
  exact Finset.sum_congr rfl fun α _ => by ring

/-- `∑_{α ∈ supp c_i} c_{iα}² α! ρ^|α| = corr c ρ i + (mean c i)²` (`0! ρ⁰ = 1`). -/
theorem sum_mul_mfact_pow_eq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (ρ : ℝ) (i : Fin n) :
    ∑ α ∈ (c i).support, c i α * c i α * (mfact α * ρ ^ deg α) =
      corr c ρ i + mean c i * mean c i := by
  have h0 : mfact (0 : Fin n →₀ ℕ) * ρ ^ deg (0 : Fin n →₀ ℕ) = 1 := by
    rw [mfact_zero, deg_zero, pow_zero, one_mul]
    all_goals rfl
  calc ∑ α ∈ (c i).support, c i α * c i α * (mfact α * ρ ^ deg α)
      = (∑ α ∈ (c i).support.filter (fun α => α ≠ 0), c i α * c i α * (mfact α * ρ ^ deg α)) +
          c i 0 * c i 0 * (mfact (0 : Fin n →₀ ℕ) * ρ ^ deg (0 : Fin n →₀ ℕ)) :=
        sum_support_mul_self (c i) (fun α => mfact α * ρ ^ deg α)
    _ = (∑ α ∈ (c i).support.filter (fun α => α ≠ 0), c i α * c i α * (mfact α * ρ ^ deg α)) +
          c i 0 * c i 0 := by rw [h0, mul_one]
    _ = corr c ρ i + mean c i * mean c i :=
        (congrArg (fun t : ℝ => t + c i 0 * c i 0) (corr_eq_sum_filter c ρ i)).symm

theorem iterIntegrable_encoderEval_mul (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i k : Fin n) :
    IterIntegrable (fun z (_ : Fin n → ℝ) => encoderEval c z i * encoderEval c z k) :=
  (iterIntegrable_sum_sum (c i) (c k)
    (fun a b z (_ : Fin n → ℝ) => hermiteMulti a z * hermiteMulti b z)
    (fun a b => iterIntegrable_hermiteMulti_mul a b)).congr
    (fun z _ => (encoderEval_mul_encoderEval c z z i k).symm)

/-- `E[h_i(z) h_k(z)]` as an iterated integral constant in `η`. -/
theorem iterIntegral_encoderEval_mul (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i k : Fin n) :
    ∫ z, (∫ _ : Fin n → ℝ, encoderEval c z i * encoderEval c z k
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      cov c i k + mean c i * mean c k :=
  (iterIntegral_const (fun z => encoderEval c z i * encoderEval c z k)).trans
    (integral_encoderEval_mul c i k)

theorem iterIntegrable_encoderEval_lag {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i k : Fin n) :
    IterIntegrable (fun z η => encoderEval c z i *
      encoderEval c (fun j => ρ * z j + σ * η j) k) :=
  (iterIntegrable_sum_sum (c i) (c k)
    (fun a b z η => hermiteMulti a z * hermiteMulti b (fun j => ρ * z j + σ * η j))
    (fun a b => iterIntegrable_hermiteMulti_lag hσ a b)).congr
    (fun z η => (encoderEval_mul_encoderEval c z (fun j => ρ * z j + σ * η j) i k).symm)

/-- **The lag moment of the coefficient model is a Gaussian integral**: for the OU pair
`z' = ρ z + σ η`, `σ² = 1 - ρ²`, `E[h_i(z) h_i(z')] = corr c ρ i + (mean c i)²`, i.e. `corr` is
the lag covariance `Cov(h_i(z), h_i(z'))`. -/
theorem iterIntegral_encoderEval_lag {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) :
    ∫ z, (∫ η, encoderEval c z i * encoderEval c (fun j => ρ * z j + σ * η j) i
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      corr c ρ i + mean c i * mean c i := by
  calc ∫ z, (∫ η, encoderEval c z i * encoderEval c (fun j => ρ * z j + σ * η j) i
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∫ z, (∫ η, ∑ a ∈ (c i).support, ∑ b ∈ (c i).support, c i a * c i b *
          (hermiteMulti a z * hermiteMulti b (fun j => ρ * z j + σ * η j))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        iterIntegral_congr (fun z η =>
          encoderEval_mul_encoderEval c z (fun j => ρ * z j + σ * η j) i i)
    _ = ∑ a ∈ (c i).support, c i a * c i a * (mfact a * ρ ^ deg a) :=
        iterIntegral_sum_sum (c i) (c i)
          (fun a b z η => hermiteMulti a z * hermiteMulti b (fun j => ρ * z j + σ * η j))
          (fun b => mfact b * ρ ^ deg b)
          (fun a b => iterIntegrable_hermiteMulti_lag hσ a b)
          (fun a b => integral_integral_hermiteMulti_ou hσ a b)
    _ = corr c ρ i + mean c i * mean c i := sum_mul_mfact_pow_eq c ρ i

theorem iterIntegrable_encoderEval_mul_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i k : Fin n) :
    IterIntegrable (fun z η => encoderEval c (fun j => ρ * z j + σ * η j) i *
      encoderEval c (fun j => ρ * z j + σ * η j) k) :=
  (iterIntegrable_sum_sum (c i) (c k)
    (fun a b z η => hermiteMulti a (fun j => ρ * z j + σ * η j) *
      hermiteMulti b (fun j => ρ * z j + σ * η j))
    (fun a b => iterIntegrable_hermiteMulti_mul_ou hσ a b)).congr
    (fun z η => (encoderEval_mul_encoderEval c (fun j => ρ * z j + σ * η j)
      (fun j => ρ * z j + σ * η j) i k).symm)

/-- **The second moments at the OU partner**: `E[h_i(z') h_k(z')] = cov c i k + mean c i mean c k`
(the same as at `z`: `z'` has the law of `z` on polynomials). -/
theorem iterIntegral_encoderEval_mul_ou {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i k : Fin n) :
    ∫ z, (∫ η, encoderEval c (fun j => ρ * z j + σ * η j) i *
        encoderEval c (fun j => ρ * z j + σ * η j) k
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      cov c i k + mean c i * mean c k := by
  calc ∫ z, (∫ η, encoderEval c (fun j => ρ * z j + σ * η j) i *
        encoderEval c (fun j => ρ * z j + σ * η j) k
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∫ z, (∫ η, ∑ a ∈ (c i).support, ∑ b ∈ (c k).support, c i a * c k b *
          (hermiteMulti a (fun j => ρ * z j + σ * η j) *
            hermiteMulti b (fun j => ρ * z j + σ * η j))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        iterIntegral_congr (fun z η => encoderEval_mul_encoderEval c
          (fun j => ρ * z j + σ * η j) (fun j => ρ * z j + σ * η j) i k)
    _ = ∑ a ∈ (c i).support, c i a * c k a * mfact a :=
        iterIntegral_sum_sum (c i) (c k)
          (fun a b z η => hermiteMulti a (fun j => ρ * z j + σ * η j) *
            hermiteMulti b (fun j => ρ * z j + σ * η j))
          mfact
          (fun a b => iterIntegrable_hermiteMulti_mul_ou hσ a b)
          (fun a b => iterIntegral_hermiteMulti_mul_ou hσ a b)
    _ = (∑ α ∈ ((c i).support ∪ (c k).support).filter (fun α => α ≠ 0),
          c i α * c k α * mfact α) + c i 0 * c k 0 :=
        sum_mul_mfact_eq (c i) (c k)
    _ = cov c i k + mean c i * mean c k := rfl

/-- `(x - y)² = x x - 2 (y x) + y y`. -/
theorem sq_sub_eq_mul_sub_add (x y : ℝ) : (x - y) ^ 2 = x * x - 2 * (y * x) + y * y := by ring

theorem iterIntegrable_align_component {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) :
    IterIntegrable (fun z η =>
      (encoderEval c (fun j => ρ * z j + σ * η j) i - encoderEval c z i) ^ 2) :=
  (((iterIntegrable_encoderEval_mul_ou hσ c i i).sub
    ((iterIntegrable_encoderEval_lag hσ c i i).const_mul 2)).add
    (iterIntegrable_encoderEval_mul c i i)).congr
    (fun z η => (sq_sub_eq_mul_sub_add
      (encoderEval c (fun j => ρ * z j + σ * η j) i) (encoderEval c z i)).symm)

/-- One component of the alignment loss: `E[(h_i(z') - h_i(z))²] = 2 (variance c i - corr c ρ i)`
(the mean cancels). -/
theorem iterIntegral_align_component {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) :
    ∫ z, (∫ η, (encoderEval c (fun j => ρ * z j + σ * η j) i - encoderEval c z i) ^ 2
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      2 * (Lejepa.Hermite.variance c i - corr c ρ i) := by
  have hA := iterIntegrable_encoderEval_mul_ou hσ c i i
  have hB := (iterIntegrable_encoderEval_lag hσ c i i).const_mul 2
  have hC := iterIntegrable_encoderEval_mul c i i
  calc ∫ z, (∫ η, (encoderEval c (fun j => ρ * z j + σ * η j) i - encoderEval c z i) ^ 2
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∫ z, (∫ η, (encoderEval c (fun j => ρ * z j + σ * η j) i *
            encoderEval c (fun j => ρ * z j + σ * η j) i -
          2 * (encoderEval c z i * encoderEval c (fun j => ρ * z j + σ * η j) i)) +
          encoderEval c z i * encoderEval c z i
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        iterIntegral_congr (fun z η => sq_sub_eq_mul_sub_add
          (encoderEval c (fun j => ρ * z j + σ * η j) i) (encoderEval c z i))
    _ = (∫ z, (∫ η, encoderEval c (fun j => ρ * z j + σ * η j) i *
            encoderEval c (fun j => ρ * z j + σ * η j) i -
          2 * (encoderEval c z i * encoderEval c (fun j => ρ * z j + σ * η j) i)
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)) +
        ∫ z, (∫ _ : Fin n → ℝ, encoderEval c z i * encoderEval c z i
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        iterIntegral_add (hA.sub hB) hC
    _ = ((cov c i i + mean c i * mean c i) - 2 * (corr c ρ i + mean c i * mean c i)) +
          (cov c i i + mean c i * mean c i) := by
        rw [iterIntegral_sub hA hB,
          iterIntegral_const_mul 2
            (fun z η => encoderEval c z i * encoderEval c (fun j => ρ * z j + σ * η j) i),
          iterIntegral_encoderEval_mul_ou hσ c i i, iterIntegral_encoderEval_lag hσ c i,
          iterIntegral_encoderEval_mul c i i]
    _ = 2 * (Lejepa.Hermite.variance c i - corr c ρ i) := by
        rw [variance_eq_cov_self c i]
        ring

/-- **The alignment loss of the coefficient model is a Gaussian integral**: for the OU pair
`z' = ρ z + σ η`, `σ² = 1 - ρ²`,
`E‖h(z') - h(z)‖² = ∫∫ ∑_i (h_i(ρ z + σ η) - h_i(z))² dγⁿ(η) dγⁿ(z) = alignLoss c ρ`. -/
theorem iterIntegral_align {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) :
    ∫ z, (∫ η, ∑ i, (encoderEval c (fun j => ρ * z j + σ * η j) i - encoderEval c z i) ^ 2
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      alignLoss c ρ := by
  calc ∫ z, (∫ η, ∑ i, (encoderEval c (fun j => ρ * z j + σ * η j) i - encoderEval c z i) ^ 2
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∑ i, ∫ z, (∫ η, (encoderEval c (fun j => ρ * z j + σ * η j) i - encoderEval c z i) ^ 2
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        iterIntegral_finsetSum Finset.univ
          (F := fun i z η =>
            (encoderEval c (fun j => ρ * z j + σ * η j) i - encoderEval c z i) ^ 2)
          (fun i _ => iterIntegrable_align_component hσ c i)
    _ = ∑ i, 2 * (Lejepa.Hermite.variance c i - corr c ρ i) :=
        Finset.sum_congr rfl fun i _ => iterIntegral_align_component hσ c i
    _ = alignLoss c ρ := rfl

/-! ## The recovery error as a Gaussian integral -/

/-- The evaluated encoder is additive in its coefficients:
`encoderEval (c - d) z i = encoderEval c z i - encoderEval d z i`. -/
theorem encoderEval_sub (c d : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (z : Fin n → ℝ) (i : Fin n) :
    encoderEval (fun k => c k - d k) z i = encoderEval c z i - encoderEval d z i := by
  show (c i - d i).sum (fun α a => a * hermiteMulti α z) =
    (c i).sum (fun α a => a * hermiteMulti α z) - (d i).sum (fun α a => a * hermiteMulti α z)
  exact Finsupp.sum_sub_index (f := c i) (g := d i) (h := fun α a => a * hermiteMulti α z)
    (fun α b₁ b₂ => sub_mul b₁ b₂ (hermiteMulti α z))

/-- `(h_i(z) - (Q z)_i)²` is the square of the encoder with coefficients `c i - linCoeff Q i`. -/
theorem sq_sub_mulVec_eq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (Q : Matrix (Fin n) (Fin n) ℝ)
    (z : Fin n → ℝ) (i : Fin n) :
    (encoderEval c z i - Matrix.mulVec Q z i) ^ 2 =
      encoderEval (fun k => c k - Lejepa.Approx.linCoeff Q k) z i *
        encoderEval (fun k => c k - Lejepa.Approx.linCoeff Q k) z i := by
  rw [encoderEval_sub c (Lejepa.Approx.linCoeff Q) z i, Lejepa.Approx.encoderEval_linCoeff Q z]
  ring

/-- `z ↦ h_i(z) h_k(z)` is integrable under `γⁿ`. -/
theorem integrable_encoderEval_mul (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i k : Fin n) :
    Integrable (fun z => encoderEval c z i * encoderEval c z k)
      (Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
  (integrable_finsetSum (c i).support
    (f := fun α z => ∑ β ∈ (c k).support,
      c i α * c k β * (hermiteMulti α z * hermiteMulti β z))
    (fun α _ => integrable_sum_hermiteMulti_mul c i k α)).congr
    (ae_of_all _ fun z => (encoderEval_mul_eq c z i k).symm)

/-- One component of the recovery error:
`E[(h_i(z) - (Q z)_i)²] = ∑_α (c i α - linCoeff Q i α)² α!`. -/
theorem integral_sq_sub_mulVec (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ))
    (Q : Matrix (Fin n) (Fin n) ℝ) (i : Fin n) :
    ∫ z, (encoderEval c z i - Matrix.mulVec Q z i) ^ 2
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      ∑ α ∈ (c i - Lejepa.Approx.linCoeff Q i).support,
        ((c i - Lejepa.Approx.linCoeff Q i) α) ^ 2 * mfact α := by
  calc ∫ z, (encoderEval c z i - Matrix.mulVec Q z i) ^ 2
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∫ z, encoderEval (fun k => c k - Lejepa.Approx.linCoeff Q k) z i *
          encoderEval (fun k => c k - Lejepa.Approx.linCoeff Q k) z i
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        integral_congr_ae (ae_of_all _ fun z => sq_sub_mulVec_eq c Q z i)
    _ = cov (fun k => c k - Lejepa.Approx.linCoeff Q k) i i +
          mean (fun k => c k - Lejepa.Approx.linCoeff Q k) i *
            mean (fun k => c k - Lejepa.Approx.linCoeff Q k) i :=
        integral_encoderEval_mul (fun k => c k - Lejepa.Approx.linCoeff Q k) i i
    _ = (∑ α ∈ ((c i - Lejepa.Approx.linCoeff Q i).support ∪
            (c i - Lejepa.Approx.linCoeff Q i).support).filter (fun α => α ≠ 0),
          (c i - Lejepa.Approx.linCoeff Q i) α * (c i - Lejepa.Approx.linCoeff Q i) α *
            mfact α) +
          (c i - Lejepa.Approx.linCoeff Q i) 0 * (c i - Lejepa.Approx.linCoeff Q i) 0 := rfl
    _ = ∑ α ∈ (c i - Lejepa.Approx.linCoeff Q i).support,
          (c i - Lejepa.Approx.linCoeff Q i) α * (c i - Lejepa.Approx.linCoeff Q i) α *
            mfact α :=
        (sum_mul_mfact_eq (c i - Lejepa.Approx.linCoeff Q i)
          (c i - Lejepa.Approx.linCoeff Q i)).symm
    _ = ∑ α ∈ (c i - Lejepa.Approx.linCoeff Q i).support,
          ((c i - Lejepa.Approx.linCoeff Q i) α) ^ 2 * mfact α :=
        Finset.sum_congr rfl fun α _ => by ring

/-- **The recovery error of the coefficient model is a Gaussian integral**:
`E‖h(z) - Q z‖² = ∫ ∑_i (h_i(z) - (Q z)_i)² dγⁿ(z) = recoveryError c Q`. -/
theorem integral_recovery (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (Q : Matrix (Fin n) (Fin n) ℝ) :
    ∫ z, ∑ i, (encoderEval c z i - Matrix.mulVec Q z i) ^ 2
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) =
      Lejepa.Approx.recoveryError c Q := by
  calc ∫ z, ∑ i, (encoderEval c z i - Matrix.mulVec Q z i) ^ 2
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)
      = ∑ i, ∫ z, (encoderEval c z i - Matrix.mulVec Q z i) ^ 2
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) :=
        integral_finsetSum Finset.univ
          (f := fun i z => (encoderEval c z i - Matrix.mulVec Q z i) ^ 2)
          (fun i _ => (integrable_encoderEval_mul
            (fun k => c k - Lejepa.Approx.linCoeff Q k) i i).congr
            (ae_of_all _ fun z => (sq_sub_mulVec_eq c Q z i).symm))
    _ = ∑ i, ∑ α ∈ (c i - Lejepa.Approx.linCoeff Q i).support,
          ((c i - Lejepa.Approx.linCoeff Q i) α) ^ 2 * mfact α :=
        Finset.sum_congr rfl fun i _ => integral_sq_sub_mulVec c Q i
    _ = Lejepa.Approx.recoveryError c Q := rfl

/-! ## Theorem 4.1 with Gaussian integrals -/

/-- **Theorem 4.1 (linear identifiability) for every polynomial encoder, with Gaussian
integrals.**

Paper (Thm 4.1): for `z ~ N(0, Iₙ)`, the OU pair `z' = ρ z + √(1-ρ²) η`, `0 < ρ < 1`, an encoder
minimising `E‖h(z') - h(z)‖²` subject to `h(z) ~ N(0, Iₙ)` is `h(z) = Q z` with `Q ∈ O(n)`.

Proved here, for every encoder `h = encoderEval c` with finitely many Hermite coefficients (a
polynomial map written in the Hermite basis), every `0 < ρ < 1` and every `σ` with `σ² = 1 - ρ²`
(e.g. `σ = √(1-ρ²)`): if `∫ h_i dγⁿ = 0` and `∫ h_i h_k dγⁿ = [i = k]` (the first two moments of
`h(z) ~ N(0, Iₙ)`), then (a) `E‖h(z') - h(z)‖² ≥ 2(1-ρ)n`, the expectation being the iterated
integral over `η ~ γⁿ` and `z ~ γⁿ`; (b) if equality holds, `h(z) = Q z` for all `z`, with
`Q ∈ O(n)`. Proof: the hypotheses say `mean c = 0` and `cov c = 1` (`integral_encoderEval`,
`integral_encoderEval_mul`), the loss is `alignLoss c ρ` (`iterIntegral_align`), and
`Lejepa.Hermite.linear_identifiability` applies. Not covered: non-polynomial (general `L²`)
encoders. -/
theorem linear_identifiability_gaussian (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) {ρ σ : ℝ}
    (hρ0 : 0 < ρ) (hρ1 : ρ < 1) (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (hmean : ∀ i, ∫ z, encoderEval c z i ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) = 0)
    (hcov : ∀ i k, ∫ z, encoderEval c z i * encoderEval c z k
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) = if i = k then 1 else 0) :
    2 * (1 - ρ) * (n : ℝ) ≤
        ∫ z, (∫ η, ∑ i, (encoderEval c (fun j => ρ * z j + σ * η j) i - encoderEval c z i) ^ 2
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) ∧
      (∫ z, (∫ η, ∑ i, (encoderEval c (fun j => ρ * z j + σ * η j) i - encoderEval c z i) ^ 2
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) = 2 * (1 - ρ) * (n : ℝ) →
        ∃ Q ∈ Matrix.orthogonalGroup (Fin n) ℝ,
          ∀ z : Fin n → ℝ, encoderEval c z = Matrix.mulVec Q z) := by
  have hm : ∀ i, mean c i = 0 := fun i => (integral_encoderEval c i).symm.trans (hmean i)
  have hc : cov c = 1 := by
    refine Matrix.ext fun i k => ?_
    have h := integral_encoderEval_mul c i k
    rw [hcov i k, hm i, hm k, mul_zero, add_zero] at h
    rw [Matrix.one_apply]
    exact h.symm
  rw [iterIntegral_align hσ c]
  exact linear_identifiability c hρ0 hρ1 hm hc

/-- **Non-vacuity of `linear_identifiability_gaussian`.** For every orthogonal `Q`, `0 < ρ < 1`
and `σ² = 1 - ρ²`, the linear encoder `z ↦ Q z` has `∫ h_i = 0`, `∫ h_i h_k = [i = k]`, attains
`E‖h(z') - h(z)‖² = 2(1-ρ)n`, and evaluates to `z ↦ Q z`. -/
theorem linear_identifiability_gaussian_witness (Q : Matrix (Fin n) (Fin n) ℝ)
    (hQ : Q ∈ Matrix.orthogonalGroup (Fin n) ℝ) {ρ σ : ℝ} (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (hσ : σ ^ 2 = 1 - ρ ^ 2) :
    (∀ i, ∫ z, encoderEval (linearEncoder Q) z i
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) = 0) ∧
      (∀ i k, ∫ z, encoderEval (linearEncoder Q) z i * encoderEval (linearEncoder Q) z k
        ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) = if i = k then 1 else 0) ∧
      ∫ z, (∫ η, ∑ i, (encoderEval (linearEncoder Q) (fun j => ρ * z j + σ * η j) i -
          encoderEval (linearEncoder Q) z i) ^ 2
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
          ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) = 2 * (1 - ρ) * (n : ℝ) ∧
      ∀ z : Fin n → ℝ, encoderEval (linearEncoder Q) z = Matrix.mulVec Q z := by
  obtain ⟨hm, hc, hl, he⟩ := linear_identifiability_witness Q hQ hρ0 hρ1
  refine ⟨fun i => (integral_encoderEval (linearEncoder Q) i).trans (hm i), fun i k => ?_,
    (iterIntegral_align hσ (linearEncoder Q)).trans hl, he⟩
  rw [integral_encoderEval_mul, hm i, hm k, mul_zero, add_zero, hc]
  all_goals exact Matrix.one_apply

/-- The witness plugged into `linear_identifiability_gaussian`: its second conclusion is reached. -/
theorem linear_identifiability_gaussian_applies (Q : Matrix (Fin n) (Fin n) ℝ)
    (hQ : Q ∈ Matrix.orthogonalGroup (Fin n) ℝ) {ρ σ : ℝ} (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (hσ : σ ^ 2 = 1 - ρ ^ 2) :
    ∃ Q' ∈ Matrix.orthogonalGroup (Fin n) ℝ,
      ∀ z : Fin n → ℝ, encoderEval (linearEncoder Q) z = Matrix.mulVec Q' z := by
  obtain ⟨hm, hc, hl, -⟩ := linear_identifiability_gaussian_witness Q hQ hρ0 hρ1 hσ
  exact (linear_identifiability_gaussian (linearEncoder Q) hρ0 hρ1 hσ hm hc).2 hl

/-! ## Theorem 4.3 with Gaussian integrals -/

/-- The Gaussian mean `∫ h_i dγⁿ`. -/
def gaussMean (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) : ℝ :=
  ∫ z, encoderEval c z i ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)

/-- The Gaussian covariance matrix `Cov_ik = ∫ h_i h_k dγⁿ - ∫ h_i dγⁿ ∫ h_k dγⁿ`. -/
def gaussCov (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : Matrix (Fin n) (Fin n) ℝ :=
  Matrix.of fun i k =>
    ∫ z, encoderEval c z i * encoderEval c z k ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) -
      gaussMean c i * gaussMean c k

/-- The alignment loss `E‖h(z') - h(z)‖²` for the OU pair `z' = ρ z + σ η`. -/
def gaussAlign (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (ρ σ : ℝ) : ℝ :=
  ∫ z, (∫ η, ∑ i, (encoderEval c (fun j => ρ * z j + σ * η j) i - encoderEval c z i) ^ 2
    ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1))
    ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)

/-- The trace gap `δ_tr = E‖h(z') - h(z)‖² - 2(1-ρ) tr Cov`. -/
def gaussTraceGap (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (ρ σ : ℝ) : ℝ :=
  gaussAlign c ρ σ - 2 * (1 - ρ) * Matrix.trace (gaussCov c)

/-- The recovery error `E‖h(z) - Q z‖²`. -/
def gaussRecovery (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (Q : Matrix (Fin n) (Fin n) ℝ) : ℝ :=
  ∫ z, ∑ i, (encoderEval c z i - Matrix.mulVec Q z i) ^ 2
    ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1)

theorem gaussMean_eq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (i : Fin n) :
    gaussMean c i = mean c i :=
  integral_encoderEval c i

theorem gaussCov_eq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) : gaussCov c = cov c := by
  refine Matrix.ext fun i k => ?_
  rw [gaussCov, Matrix.of_apply, integral_encoderEval_mul c i k, gaussMean_eq c i, gaussMean_eq c k]
  ring

theorem gaussAlign_eq {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2) (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) :
    gaussAlign c ρ σ = alignLoss c ρ :=
  iterIntegral_align hσ c

theorem gaussRecovery_eq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) (Q : Matrix (Fin n) (Fin n) ℝ) :
    gaussRecovery c Q = Lejepa.Approx.recoveryError c Q :=
  integral_recovery c Q

theorem gaussTraceGap_eq {ρ σ : ℝ} (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) :
    gaussTraceGap c ρ σ = Lejepa.Approx.traceGap c ρ := by
  calc gaussTraceGap c ρ σ = alignLoss c ρ - 2 * (1 - ρ) * Matrix.trace (cov c) := by
        rw [gaussTraceGap, gaussAlign_eq hσ c, gaussCov_eq c]
    _ = Lejepa.Approx.traceGap c ρ := rfl

theorem frob_gaussCov_sub_one (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) :
    Lejepa.Approx.frob (gaussCov c - 1) = Lejepa.Approx.whiteningError c := by
  calc Lejepa.Approx.frob (gaussCov c - 1) = Lejepa.Approx.frob (cov c - 1) := by
        rw [gaussCov_eq c]
    _ = Lejepa.Approx.whiteningError c := rfl

theorem sum_gaussMean_sq (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) :
    ∑ i, gaussMean c i ^ 2 = Lejepa.Approx.meanSq c :=
  Finset.sum_congr rfl fun i _ => by rw [gaussMean_eq c i]

/-- **Theorem 4.3 (approximate identifiability), corrected form, for every polynomial encoder,
with Gaussian integrals.**

Paper: `E‖h(z) - Q z‖² ≤ D + (ε + D)²` for some `Q ∈ O(n)`, with `D = δ / (2ρ(1-ρ))`,
`δ = L_align - 2(1-ρ)n`, `ε = ‖Cov h(z) - Iₙ‖_F`.

Proved here, for every encoder `h = encoderEval c` with finitely many Hermite coefficients, every
`0 < ρ < 1` and `σ² = 1 - ρ²`, with every quantity a Gaussian integral (`gaussRecovery`,
`gaussMean`, `gaussCov`, `gaussAlign`; no other hypothesis): some `Q ∈ O(n)` has
`E‖h(z) - Q z‖² ≤ ∑_i (E h_i)² + D_tr + (ε + D_tr)²`, with `D_tr = δ_tr / (2ρ(1-ρ))`,
`δ_tr = E‖h(z') - h(z)‖² - 2(1-ρ) tr Cov` and `ε = ‖Cov - I‖_F`. The corrections against the
paper (the trace in place of `n`, the mean term) are needed: `Lejepa.Approx` has counterexamples
to the unqualified form. Proof: every quantity equals its coefficient-model counterpart
(`gaussRecovery_eq`, `sum_gaussMean_sq`, `gaussTraceGap_eq`, `frob_gaussCov_sub_one`), and
`Lejepa.Approx.approximate_identifiability` applies. -/
theorem approximate_identifiability_gaussian (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ)) {ρ σ : ℝ}
    (h0 : 0 < ρ) (h1 : ρ < 1) (hσ : σ ^ 2 = 1 - ρ ^ 2) :
    ∃ Q ∈ Matrix.orthogonalGroup (Fin n) ℝ,
      gaussRecovery c Q ≤ ∑ i, gaussMean c i ^ 2 +
        Lejepa.Approx.normalizedGap (gaussTraceGap c ρ σ) ρ +
        (Lejepa.Approx.frob (gaussCov c - 1) +
          Lejepa.Approx.normalizedGap (gaussTraceGap c ρ σ) ρ) ^ 2 := by
  obtain ⟨Q, hQ, hle⟩ := Lejepa.Approx.approximate_identifiability c h0 h1
  refine ⟨Q, hQ, ?_⟩
  rw [gaussRecovery_eq c Q, sum_gaussMean_sq c, gaussTraceGap_eq hσ c, frob_gaussCov_sub_one c]
  exact hle

/-- **The paper's form of Theorem 4.3, with Gaussian integrals, under the paper's normalisation.**
If `∫ h_i dγⁿ = 0` and `∫ h_i² dγⁿ = 1` for every component, some `Q ∈ O(n)` has
`E‖h(z) - Q z‖² ≤ D + (ε + D)²` with the paper's `D = δ / (2ρ(1-ρ))`,
`δ = E‖h(z') - h(z)‖² - 2(1-ρ)n`. -/
theorem approximate_identifiability_gaussian_paper_form (c : Fin n → ((Fin n →₀ ℕ) →₀ ℝ))
    {ρ σ : ℝ} (h0 : 0 < ρ) (h1 : ρ < 1) (hσ : σ ^ 2 = 1 - ρ ^ 2)
    (hmean : ∀ i, gaussMean c i = 0)
    (hvar : ∀ i, ∫ z, encoderEval c z i * encoderEval c z i
      ∂(Measure.pi fun _ : Fin n => gaussianReal 0 1) = 1) :
    ∃ Q ∈ Matrix.orthogonalGroup (Fin n) ℝ,
      gaussRecovery c Q ≤
        Lejepa.Approx.normalizedGap (gaussAlign c ρ σ - 2 * (1 - ρ) * (n : ℝ)) ρ +
        (Lejepa.Approx.frob (gaussCov c - 1) +
          Lejepa.Approx.normalizedGap (gaussAlign c ρ σ - 2 * (1 - ρ) * (n : ℝ)) ρ) ^ 2 := by
  have hm : ∀ i, mean c i = 0 := fun i => (gaussMean_eq c i).symm.trans (hmean i)
  have hv : ∀ i, Lejepa.Hermite.variance c i = 1 := by
    intro i
    have h := integral_encoderEval_mul_self c i
    rw [hvar i, hm i, mul_zero, add_zero] at h
    exact h.symm
  obtain ⟨Q, hQ, hle⟩ := Lejepa.Approx.approximate_identifiability_paper_form c h0 h1 hm hv
  refine ⟨Q, hQ, ?_⟩
  have hgap : gaussAlign c ρ σ - 2 * (1 - ρ) * (n : ℝ) = Lejepa.Approx.paperGap c ρ := by
    calc gaussAlign c ρ σ - 2 * (1 - ρ) * (n : ℝ) = alignLoss c ρ - 2 * (1 - ρ) * (n : ℝ) := by
          rw [gaussAlign_eq hσ c]
      _ = Lejepa.Approx.paperGap c ρ := rfl
  rw [gaussRecovery_eq c Q, hgap, frob_gaussCov_sub_one c]
  exact hle

end

end Lejepa.GaussianIdent
