// Prints the ABI layout (abi_layout.h); its output for ABI 1.<minor> is
// that minor's recorded baseline, v1_<minor>_layout.txt.
#include <iostream>

#include "abi_layout.h"

int main() {
  for (const std::string& line : current_abi_layout()) std::cout << line << "\n";
}
