import Mathlib

-- All of Mathlib is imported on purpose: no Lean toolchain was available where these files were
-- written, and a missing transitive import would break the build. Narrow the imports once
-- `lake build` has run.

/-!
# Planning in an orthogonally encoded latent space (paper, Corollary 4.5)

Paper claim (Corollary 4.5): if the encoder is `h(z) = Q z` with `Q ∈ O(n)`, then for any
`O(n)`-invariant cost (`ℓ(Q z, a) = ℓ(z, a)`: distance to a goal, isotropic LQR
`zᵀ P z + aᵀ R a` with `P = c I`, a norm penalty, a goal indicator) the latent value and the
latent optimal action sequences equal the true ones.

What is formalized here (deterministic finite-horizon planning):

* a state space `S`, actions of any type `A`, deterministic dynamics `f : S → A → S`, a stage
  cost `ℓ : S → A → ℝ`, a horizon `T : ℕ`; a plan is a sequence `a : ℕ → A` (only `a 0, …, a (T-1)`
  matter); `rollout f z0 a t` is the state after `t` steps and
  `totalCost f ℓ T z0 a = ∑_{t < T} ℓ (z_t, a_t)`;
* the latent system seen through an encoder `Q` with left inverse `Qinv`
  (`Qinv (Q z) = z`): latent dynamics `f̂ ẑ a = Q (f (Qinv ẑ) a)` and a latent stage cost `ℓ̂`
  with `ℓ̂ (Q z) a = ℓ z a` (for an invariant cost, `ℓ̂ = ℓ`: the planner does not know `Q`);
* conclusions: latent rollout from `Q z0` is `Q` applied to the true rollout
  (`rollout_latent`); the latent total cost of every plan equals the true one
  (`totalCost_latent`); hence the optimal values (`⨅` over plans, `optimalValue_latent`) and
  the sets of optimal plans (`optimalPlans_latent`) coincide.

The abstract part needs only `Qinv ∘ Q = id`. It is then specialised to a linear isometry
equivalence `Q : E ≃ₗᵢ[ℝ] E` of a real inner product space (for `E = EuclideanSpace ℝ (Fin n)`
these are exactly the maps `z ↦ Q z` with `Q` orthogonal), with `Qinv = Q.symm`
(`encoded_planning_eq`), and the four named costs are shown to satisfy the invariance
hypothesis (`goalDistCost_encoded`, `normPenaltyCost_encoded`, `isotropicLQRCost_encoded`,
`goalIndicatorCost_encoded`; the goal is encoded as `Q g` for the two goal costs).
Non-vacuity: negation `z ↦ -z` with the norm penalty meets the hypothesis of
`encoded_planning_eq` (`neg_normPenaltyCost_invariant`, `encoded_planning_eq_neg`), and negation
is not the identity (`neg_real_ne_id`).

Remarks on fidelity.
* `optimalValue` is an infimum in `ℝ` (a conditionally complete lattice): when the costs are not
  bounded below it takes Mathlib's junk value; the equality of values holds in every case,
  because the two families of costs are equal plan by plan.
* Only deterministic dynamics are formalized. The paper's stochastic version (push the transition
  kernel forward by `Q` and compare expected costs) is not formalized here.
-/

noncomputable section

namespace Lejepa.Planning

variable {S A : Type*}

/-- The state after `t` steps of the deterministic dynamics `f` from `z0` under the plan `a`:
`z_0 = z0`, `z_{t+1} = f z_t (a t)`. -/
def rollout (f : S → A → S) (z0 : S) (a : ℕ → A) : ℕ → S
  | 0 => z0
  | t + 1 => f (rollout f z0 a t) (a t)

theorem rollout_zero (f : S → A → S) (z0 : S) (a : ℕ → A) : rollout f z0 a 0 = z0 := rfl

theorem rollout_succ (f : S → A → S) (z0 : S) (a : ℕ → A) (t : ℕ) :
    rollout f z0 a (t + 1) = f (rollout f z0 a t) (a t) := rfl

/-- Total cost over the horizon `T`: `J(a; z0) = ∑_{t < T} ℓ (z_t) (a t)`. -/
def totalCost (f : S → A → S) (ℓ : S → A → ℝ) (T : ℕ) (z0 : S) (a : ℕ → A) : ℝ :=
  ∑ t ∈ Finset.range T, ℓ (rollout f z0 a t) (a t)

/-- Optimal value: infimum of the total cost over all plans. -/
def optimalValue (f : S → A → S) (ℓ : S → A → ℝ) (T : ℕ) (z0 : S) : ℝ :=
  ⨅ a : ℕ → A, totalCost f ℓ T z0 a

/-- The set of optimal plans: those whose total cost is at most that of every plan. -/
def optimalPlans (f : S → A → S) (ℓ : S → A → ℝ) (T : ℕ) (z0 : S) : Set (ℕ → A) :=
  {a | ∀ b : ℕ → A, totalCost f ℓ T z0 a ≤ totalCost f ℓ T z0 b}

/-- Latent dynamics seen through the encoder `Q` (with left inverse `Qinv`):
`f̂ ẑ a = Q (f (Qinv ẑ) a)`. -/
def latentDyn (Q Qinv : S → S) (f : S → A → S) : S → A → S :=
  fun z a => Q (f (Qinv z) a)

section Abstract

variable {Q Qinv : S → S}

/-- The latent rollout from the encoded initial state is the encoded true rollout. -/
theorem rollout_latent (f : S → A → S) (hQ : ∀ z, Qinv (Q z) = z) (z0 : S) (a : ℕ → A)
    (t : ℕ) : rollout (latentDyn Q Qinv f) (Q z0) a t = Q (rollout f z0 a t) := by
  induction t with
  | zero => rfl
  | succ t ih =>
    -- each `rollout_succ` names its dynamics, so each rewrites exactly one side
    rw [rollout_succ (latentDyn Q Qinv f), rollout_succ f, ih]
    show Q (f (Qinv (Q (rollout f z0 a t))) (a t)) = Q (f (rollout f z0 a t) (a t))
    rw [hQ]

/-- Plan by plan, the latent total cost from `Q z0` equals the true total cost from `z0`,
whenever the latent stage cost satisfies `ℓ̂ (Q z) a = ℓ z a`. -/
theorem totalCost_latent (f : S → A → S) {ℓhat ℓ : S → A → ℝ} (hQ : ∀ z, Qinv (Q z) = z)
    (hℓ : ∀ z a, ℓhat (Q z) a = ℓ z a) (T : ℕ) (z0 : S) (a : ℕ → A) :
    totalCost (latentDyn Q Qinv f) ℓhat T (Q z0) a = totalCost f ℓ T z0 a := by
  unfold totalCost
  refine Finset.sum_congr rfl ?_
  intro t _
  rw [rollout_latent (Q := Q) (Qinv := Qinv) f hQ z0 a t, hℓ]

/-- The latent total cost, as a function of the plan, is the true total cost. -/
theorem totalCost_latent_eq (f : S → A → S) {ℓhat ℓ : S → A → ℝ} (hQ : ∀ z, Qinv (Q z) = z)
    (hℓ : ∀ z a, ℓhat (Q z) a = ℓ z a) (T : ℕ) (z0 : S) :
    totalCost (latentDyn Q Qinv f) ℓhat T (Q z0) = totalCost f ℓ T z0 :=
  funext fun a => totalCost_latent (Q := Q) (Qinv := Qinv) f hQ hℓ T z0 a

/-- The latent optimal value equals the true optimal value. -/
theorem optimalValue_latent (f : S → A → S) {ℓhat ℓ : S → A → ℝ} (hQ : ∀ z, Qinv (Q z) = z)
    (hℓ : ∀ z a, ℓhat (Q z) a = ℓ z a) (T : ℕ) (z0 : S) :
    optimalValue (latentDyn Q Qinv f) ℓhat T (Q z0) = optimalValue f ℓ T z0 := by
  unfold optimalValue
  rw [totalCost_latent_eq (Q := Q) (Qinv := Qinv) f hQ hℓ T z0]

/-- The latent optimal plans are exactly the true optimal plans. -/
theorem optimalPlans_latent (f : S → A → S) {ℓhat ℓ : S → A → ℝ} (hQ : ∀ z, Qinv (Q z) = z)
    (hℓ : ∀ z a, ℓhat (Q z) a = ℓ z a) (T : ℕ) (z0 : S) :
    optimalPlans (latentDyn Q Qinv f) ℓhat T (Q z0) = optimalPlans f ℓ T z0 := by
  unfold optimalPlans
  rw [totalCost_latent_eq (Q := Q) (Qinv := Qinv) f hQ hℓ T z0]

end Abstract

section Isometry

variable {E : Type*} [NormedAddCommGroup E] [InnerProductSpace ℝ E]

/-- **Corollary 4.5 (deterministic form).** Paper: "if `h(z) = Qz`, for any `O(n)`-invariant cost
the latent value and optimal action sequence equal the true ones."

Proved: for a linear isometry equivalence `Q` of a real inner product space `E` (e.g.
`EuclideanSpace ℝ (Fin n)` and an orthogonal matrix), deterministic dynamics `f`, and a stage
cost `ℓ` with `ℓ (Q z) a = ℓ z a` (assumed for this `Q`), the latent system
`f̂ ẑ a = Q (f (Q⁻¹ ẑ) a)` with the same cost `ℓ`, started at `Q z0`, has: rollout `Q ∘` true
rollout, the same total cost for every plan, the same optimal value and the same set of
optimal plans. Stochastic dynamics are not covered. -/
theorem encoded_planning_eq (Q : E ≃ₗᵢ[ℝ] E) (f : E → A → E) (ℓ : E → A → ℝ)
    (hℓ : ∀ z a, ℓ (Q z) a = ℓ z a) (T : ℕ) (z0 : E) :
    (∀ (a : ℕ → A) (t : ℕ), rollout (latentDyn ⇑Q ⇑Q.symm f) (Q z0) a t = Q (rollout f z0 a t)) ∧
    (∀ a : ℕ → A, totalCost (latentDyn ⇑Q ⇑Q.symm f) ℓ T (Q z0) a = totalCost f ℓ T z0 a) ∧
    optimalValue (latentDyn ⇑Q ⇑Q.symm f) ℓ T (Q z0) = optimalValue f ℓ T z0 ∧
    optimalPlans (latentDyn ⇑Q ⇑Q.symm f) ℓ T (Q z0) = optimalPlans f ℓ T z0 := by
  have hQ : ∀ z : E, Q.symm (Q z) = z := fun z => Q.symm_apply_apply z
  exact ⟨fun a t => rollout_latent (Q := ⇑Q) (Qinv := ⇑Q.symm) f hQ z0 a t,
    fun a => totalCost_latent (Q := ⇑Q) (Qinv := ⇑Q.symm) (ℓhat := ℓ) (ℓ := ℓ) f hQ hℓ T z0 a,
    optimalValue_latent (Q := ⇑Q) (Qinv := ⇑Q.symm) (ℓhat := ℓ) (ℓ := ℓ) f hQ hℓ T z0,
    optimalPlans_latent (Q := ⇑Q) (Qinv := ⇑Q.symm) (ℓhat := ℓ) (ℓ := ℓ) f hQ hℓ T z0⟩

/-- Distance to a goal `g`: `ℓ_g (z, a) = ‖z - g‖`. -/
def goalDistCost (g : E) (z : E) (_a : A) : ℝ := ‖z - g‖

/-- Norm penalty `c ‖z‖²`. -/
def normPenaltyCost (c : ℝ) (z : E) (_a : A) : ℝ := c * ‖z‖ ^ 2

/-- Isotropic LQR cost `zᵀ (c I) z + r a = c ‖z‖² + r a`, with any action cost `r`
(e.g. `r a = aᵀ R a`). -/
def isotropicLQRCost (c : ℝ) (r : A → ℝ) (z : E) (a : A) : ℝ := c * ‖z‖ ^ 2 + r a

/-- Goal indicator: `1` inside the open ball of radius `ρ` about the goal `g`, `0` outside. -/
def goalIndicatorCost (g : E) (ρ : ℝ) (z : E) (_a : A) : ℝ := if ‖z - g‖ < ρ then 1 else 0

theorem norm_map_sub_map (Q : E ≃ₗᵢ[ℝ] E) (z g : E) : ‖Q z - Q g‖ = ‖z - g‖ := by
  rw [← Q.map_sub, Q.norm_map]

/-- Distance to the encoded goal `Q g`, at the encoded state, is the true distance to `g`. -/
theorem goalDistCost_encoded (Q : E ≃ₗᵢ[ℝ] E) (g z : E) (a : A) :
    goalDistCost (Q g) (Q z) a = goalDistCost g z a := by
  show ‖Q z - Q g‖ = ‖z - g‖
  exact norm_map_sub_map Q z g

theorem normPenaltyCost_encoded (Q : E ≃ₗᵢ[ℝ] E) (c : ℝ) (z : E) (a : A) :
    normPenaltyCost c (Q z) a = normPenaltyCost c z a := by
  show c * ‖Q z‖ ^ 2 = c * ‖z‖ ^ 2
  rw [Q.norm_map]

theorem isotropicLQRCost_encoded (Q : E ≃ₗᵢ[ℝ] E) (c : ℝ) (r : A → ℝ) (z : E) (a : A) :
    isotropicLQRCost c r (Q z) a = isotropicLQRCost c r z a := by
  show c * ‖Q z‖ ^ 2 + r a = c * ‖z‖ ^ 2 + r a
  rw [Q.norm_map]

theorem goalIndicatorCost_encoded (Q : E ≃ₗᵢ[ℝ] E) (g : E) (ρ : ℝ) (z : E) (a : A) :
    goalIndicatorCost (Q g) ρ (Q z) a = goalIndicatorCost g ρ z a := by
  show (if ‖Q z - Q g‖ < ρ then (1 : ℝ) else 0) = if ‖z - g‖ < ρ then (1 : ℝ) else 0
  have hn : ‖Q z - Q g‖ = ‖z - g‖ := norm_map_sub_map Q z g
  by_cases h : ‖z - g‖ < ρ
  · have h' : ‖Q z - Q g‖ < ρ := by rw [hn]; exact h
    rw [if_pos h', if_pos h]
  · have h' : ¬ ‖Q z - Q g‖ < ρ := by rw [hn]; exact h
    rw [if_neg h', if_neg h]

/-- Goal reaching with an encoded goal: planning in the latent space towards `Q g` has the same
optimal value and the same optimal plans as planning towards `g` in the true space. -/
theorem goalDist_planning_eq (Q : E ≃ₗᵢ[ℝ] E) (f : E → A → E) (g : E) (T : ℕ) (z0 : E) :
    optimalValue (latentDyn ⇑Q ⇑Q.symm f) (goalDistCost (Q g)) T (Q z0) =
        optimalValue f (goalDistCost g) T z0 ∧
    optimalPlans (latentDyn ⇑Q ⇑Q.symm f) (goalDistCost (Q g)) T (Q z0) =
        optimalPlans f (goalDistCost g) T z0 := by
  have hQ : ∀ z : E, Q.symm (Q z) = z := fun z => Q.symm_apply_apply z
  have hℓ : ∀ (z : E) (a : A), goalDistCost (Q g) (Q z) a = goalDistCost g z a :=
    fun z a => goalDistCost_encoded Q g z a
  -- `ℓhat` and `ℓ` are given explicitly: `?ℓhat (Q z) a =?= goalDistCost (Q g) (Q z) a` is not a
  -- pattern and would otherwise be solved only by first-order approximation
  exact ⟨optimalValue_latent (Q := ⇑Q) (Qinv := ⇑Q.symm) (ℓhat := goalDistCost (Q g))
      (ℓ := goalDistCost g) f hQ hℓ T z0,
    optimalPlans_latent (Q := ⇑Q) (Qinv := ⇑Q.symm) (ℓhat := goalDistCost (Q g))
      (ℓ := goalDistCost g) f hQ hℓ T z0⟩

/-- The isotropic LQR cost satisfies the hypothesis of `encoded_planning_eq`, so latent and
true LQR planning agree (value and optimal plans). -/
theorem isotropicLQR_planning_eq (Q : E ≃ₗᵢ[ℝ] E) (f : E → A → E) (c : ℝ) (r : A → ℝ) (T : ℕ)
    (z0 : E) :
    optimalValue (latentDyn ⇑Q ⇑Q.symm f) (isotropicLQRCost c r) T (Q z0) =
        optimalValue f (isotropicLQRCost c r) T z0 ∧
    optimalPlans (latentDyn ⇑Q ⇑Q.symm f) (isotropicLQRCost c r) T (Q z0) =
        optimalPlans f (isotropicLQRCost c r) T z0 := by
  obtain ⟨_, _, hv, hp⟩ :=
    encoded_planning_eq Q f (isotropicLQRCost c r) (isotropicLQRCost_encoded Q c r) T z0
  exact ⟨hv, hp⟩

/-! ### Non-vacuity: a concrete isometry and cost meet the hypothesis of `encoded_planning_eq` -/

/-- **Non-vacuity of `encoded_planning_eq`.** Negation `z ↦ -z` (`LinearIsometryEquiv.neg ℝ`) and
the norm penalty `c ‖z‖²` satisfy the invariance hypothesis `ℓ (Q z) a = ℓ z a`. -/
theorem neg_normPenaltyCost_invariant (c : ℝ) (z : E) (a : A) :
    normPenaltyCost c ((LinearIsometryEquiv.neg ℝ : E ≃ₗᵢ[ℝ] E) z) a = normPenaltyCost c z a :=
  normPenaltyCost_encoded (LinearIsometryEquiv.neg ℝ) c z a

/-- The witness plugged into `encoded_planning_eq`: latent planning from `-z0` under the norm
penalty has the optimal value of true planning from `z0`. -/
theorem encoded_planning_eq_neg (f : E → A → E) (c : ℝ) (T : ℕ) (z0 : E) :
    optimalValue (latentDyn ⇑(LinearIsometryEquiv.neg ℝ : E ≃ₗᵢ[ℝ] E)
        ⇑(LinearIsometryEquiv.neg ℝ : E ≃ₗᵢ[ℝ] E).symm f) (normPenaltyCost c) T
        ((LinearIsometryEquiv.neg ℝ : E ≃ₗᵢ[ℝ] E) z0) =
      optimalValue f (normPenaltyCost c) T z0 :=
  (encoded_planning_eq (E := E) (LinearIsometryEquiv.neg ℝ) f (normPenaltyCost c)
    (neg_normPenaltyCost_invariant c) T z0).2.2.1

end Isometry

/-- The witness is not the identity: on `ℝ`, `LinearIsometryEquiv.neg ℝ` sends `1` to `-1`. -/
theorem neg_real_ne_id : (LinearIsometryEquiv.neg ℝ : ℝ ≃ₗᵢ[ℝ] ℝ) 1 ≠ 1 := by
  -- `LinearIsometryEquiv.coe_neg : (neg R : E → E) = fun x => -x` is `rfl` in Mathlib
  -- (`Analysis/Normed/Operator/LinearIsometry.lean`); evaluating it at `1` states the value
  -- without unfolding the coercion through `toLinearEquiv` here
  have h : (LinearIsometryEquiv.neg ℝ : ℝ ≃ₗᵢ[ℝ] ℝ) 1 = -1 :=
    congrFun (LinearIsometryEquiv.coe_neg (R := ℝ) (E := ℝ)) 1
  rw [h]
  norm_num

end Lejepa.Planning
