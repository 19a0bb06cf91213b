// Prints the ABI layout (abi_layout.h); its output for ABI 1.0 is the
// recorded baseline, v1_0_layout.txt.
#include <iostream>

#include "abi_layout.h"

int main() {
  for (const std::string& line : current_abi_layout()) std::cout << line << "\n";
}
