import Lejepa.Hermite
import Lejepa.Approx
import Lejepa.Uniqueness
import Lejepa.Planning
import Lejepa.Dirichlet
import Lejepa.Gaussian
import Lejepa.GaussianBridge
import Lejepa.GaussianIdent
